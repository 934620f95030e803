/* The signals that stop `spacrbench run` after the current item, and the
 * state their handler shares with the code that runs an item: the pending
 * signal and the pid of the running command (to pass a kill() on to it).
 * Both live here, so run_item.c and run_mode.c need only this header. */
#ifndef SPACRBENCH_CLI_RUN_SIGNALS_H
#define SPACRBENCH_CLI_RUN_SIGNALS_H

#include <signal.h>
#include <sys/types.h>

/* Install (on = 1) or restore (on = 0) the handlers. A signal inherited as
 * ignored (nohup) stays ignored. Installing clears the pending signal. */
void run_signals_catch(int on);

/* The stop signal received, 0 if none. */
int run_signals_pending(void);

/* The signals whose handler is installed now. */
void run_signals_caught_set(sigset_t *set);

/* Block the caught signals (the previous mask into *before) until the
 * running command's pid is known. */
void run_signals_block(sigset_t *before);

/* The command now running (0: none). A signal sent to spacrbench by kill()
 * while one runs is passed on to it. */
void run_signals_set_child(pid_t pid);

/* In a forked child before exec: default actions for the caught signals,
 * so one arriving before exec acts on the command. */
void run_signals_reset_in_child(void);

#endif
