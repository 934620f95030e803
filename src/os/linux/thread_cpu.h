/* What a sample costs the samplers' budget (os/sample_budget.h): the
 * calling thread's CPU time, the one OS primitive of that policy. Not
 * installed. */
#ifndef SPACRBENCH_THREAD_CPU_H
#define SPACRBENCH_THREAD_CPU_H

/* This thread's CPU seconds (CLOCK_THREAD_CPUTIME_ID); the monotonic
 * clock where that cannot be read. Wall time would count the time it
 * waited for a CPU on a busy machine. */
double sb_thread_cpu_seconds(void);

#endif
