/* The project's one monotonic clock, in seconds: the runner, the sampler,
 * the supervisor, the scaling check's executors and the command all read
 * it, so their times compare. Not installed. */
#ifndef SPACRBENCH_CLOCK_H
#define SPACRBENCH_CLOCK_H

double sb_now(void);

#endif
