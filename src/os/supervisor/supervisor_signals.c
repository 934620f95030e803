/* The supervisor's stop signals; see supervisor.h. The handler's state
 * (the pending signal, the pid of a lone running command to pass a kill()
 * on to) lives here only. */
#include <signal.h>
#include <string.h>

#include "supervisor.h"

static volatile sig_atomic_t g_signal;
static volatile sig_atomic_t g_child;

/* Remember the signal so the run stops after the current item (and the
 * cgroup is removed); pass a signal sent by kill() on to the command,
 * which already gets terminal-generated ones through its process group. */
static void on_signal(int sig, siginfo_t *info, void *context)
{
    (void)context;
    g_signal = sig;
    if (g_child > 0 && info && info->si_code <= 0)
        kill((pid_t)g_child, sig);
}

/* Signals that stop the run after the current item (and are passed on to
 * the command) instead of killing spacrbench, which would leave the item's
 * cgroup behind and the command running. SIGQUIT and SIGUSR1/2 (SLURM's
 * --signal warning) terminate by default too, so they are caught as well. */
static const int k_stop_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
#define N_STOP_SIGNALS (sizeof k_stop_signals / sizeof k_stop_signals[0])
static struct sigaction g_old_action[N_STOP_SIGNALS];
static int g_caught[N_STOP_SIGNALS];

void sb_stop_signals_catch(int on)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO; /* no SA_RESTART: wait4 returns EINTR */
    if (on)
        g_signal = 0;
    for (size_t i = 0; i < N_STOP_SIGNALS; i++) {
        if (!on) {
            if (g_caught[i])
                sigaction(k_stop_signals[i], &g_old_action[i], NULL);
            g_caught[i] = 0;
            continue;
        }
        g_caught[i] = 0;
        if (sigaction(k_stop_signals[i], NULL, &g_old_action[i]) != 0 ||
            g_old_action[i].sa_handler == SIG_IGN)
            continue;
        g_caught[i] = sigaction(k_stop_signals[i], &sa, NULL) == 0;
    }
}

int sb_stop_signal(void) { return (int)g_signal; }

void sb_stop_signals_set_child(pid_t pid) { g_child = pid; }

void sb_stop_signals_caught_set(sigset_t *set)
{
    sigemptyset(set);
    for (size_t i = 0; i < N_STOP_SIGNALS; i++)
        if (g_caught[i])
            sigaddset(set, k_stop_signals[i]);
}

void sb_stop_signals_block(sigset_t *before)
{
    sigemptyset(before); /* the kernel fills only its own part: the rest is sent on */
    sigset_t set;
    sb_stop_signals_caught_set(&set);
    sigprocmask(SIG_BLOCK, &set, before);
}
