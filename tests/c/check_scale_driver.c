/* The one scaling driver's rules, through a mock executor (hyperfine's
 * MockExecutor is the model): no process, no sleep; the mock answers each
 * round from a script in virtual time (items x seconds per item) and
 * records what the driver asked. What every front end's executor then
 * only has to run: the sizing of the timed rounds from their own pace, the
 * repeats and their spread, the counts and the top count, each worker's
 * first item, failures, OOM kills, stops and executor errors. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb_test_scale.h"
#include "spacrbench.h"

#define GIB     (1024LL * 1024 * 1024)
#define MAX_LOG 4096

typedef struct mock {
    /* the script */
    double warm_item_s;   /* seconds per warm-up item */
    double item_s;        /* seconds per timed item */
    double alt_item_s;    /* > 0: every other timed round takes this per item */
    double round_fixed_s; /* > 0: every timed round takes this, whatever its items */
    int64_t peak_per_worker;
    int64_t fail_k; /* this count's round fail_round fails (0: none) */
    int32_t fail_round;
    int32_t fail_end; /* the worker end of worker 0 there */
    int32_t fail_sigkilled;
    const char *fail_why;
    int64_t nostart_k; /* open answers 1 */
    int64_t stop_k;    /* this count's round stop_round is stopped */
    int32_t stop_round, stop_kind;
    int64_t oom_k; /* close reports oom_kills 1 for this count */
    int32_t oom_outside, oom_ours, oom_limit_is_budget;
    int64_t error_k; /* this count's round error_round returns ESYSTEM */
    int32_t error_round;
    int hook_takes_failed; /* the note hook takes FAILED notes */
    /* what the driver asked */
    int64_t opens, closes, failed_closes, rounds;
    int64_t log_k[MAX_LOG], log_items[MAX_LOG], log_first0[MAX_LOG], log_first1[MAX_LOG];
    int32_t log_warmup[MAX_LOG], log_index[MAX_LOG];
    int64_t items_run; /* every item of every worker and round */
    int64_t hook_heard[3];
    int64_t open_k;
} mock;

static int mock_open(spacrbench_scale_driver *d, int64_t workers, int64_t budget, int64_t *pids,
                     spacrbench_scale_outcome *out, void *payload)
{
    (void)d, (void)budget, (void)pids;
    mock *m = payload;
    ck_assert_int_eq(m->open_k, 0); /* every open is closed before the next */
    if (workers == m->nostart_k) {
        snprintf(out->why, sizeof out->why, "fork of worker 2 failed (mock)");
        return 1;
    }
    m->opens++;
    m->open_k = workers;
    return 0;
}

static int mock_round(spacrbench_scale_driver *d, const spacrbench_scale_round *r,
                      spacrbench_scale_worker *w, spacrbench_scale_outcome *out, void *payload)
{
    mock *m = payload;
    ck_assert_int_eq(r->workers, m->open_k);
    int64_t i = m->rounds++;
    ck_assert_int_lt(i, MAX_LOG);
    m->log_k[i] = r->workers;
    m->log_items[i] = r->items;
    m->log_first0[i] = r->first[0];
    m->log_first1[i] = r->workers > 1 ? r->first[1] : -1;
    m->log_warmup[i] = r->warmup;
    m->log_index[i] = r->index;
    if (r->workers == m->error_k && r->index == m->error_round) {
        snprintf(out->why, sizeof out->why, "the mock's pipe broke");
        return SPACRBENCH_ESYSTEM;
    }
    if (r->workers == m->stop_k && r->index == m->stop_round) {
        out->stopped = m->stop_kind;
        snprintf(out->why, sizeof out->why, "interrupted by signal 15 (mock)");
        if (m->stop_kind == 2)
            return 0; /* nothing ran */
    }
    double per = r->warmup ? m->warm_item_s : m->item_s;
    if (!r->warmup && m->alt_item_s > 0 && r->index % 2 == 0)
        per = m->alt_item_s;
    out->seconds = !r->warmup && m->round_fixed_s > 0 ? m->round_fixed_s : per * (double)r->items;
    for (int64_t k = 0; k < r->workers; k++) {
        w[k].items = r->items;
        w[k].item_seconds = per * (double)r->items;
        w[k].end = SPACRBENCH_SCALE_WORKER_DONE;
        m->items_run += r->items;
    }
    if (r->workers == m->fail_k && r->index == m->fail_round) {
        w[0].end = m->fail_end;
        w[0].items = 0;
        w[0].sigkilled = m->fail_sigkilled;
        if (m->fail_why)
            snprintf(out->why, sizeof out->why, "%s", m->fail_why);
    }
    (void)d;
    return 0;
}

static int mock_close(spacrbench_scale_driver *d, int32_t failed, spacrbench_scale_count *count,
                      void *payload)
{
    (void)d;
    mock *m = payload;
    ck_assert_int_ne(m->open_k, 0);
    m->closes++;
    m->failed_closes += failed != 0;
    count->peak_bytes = m->peak_per_worker ? m->open_k * m->peak_per_worker : -1;
    count->peak_method = SPACRBENCH_PEAK_SUPPLIED;
    if (m->open_k == m->oom_k) {
        count->oom_kills = 1;
        count->oom_outside = m->oom_outside;
        count->ours = m->oom_ours;
        count->limit_is_budget = m->oom_limit_is_budget;
    }
    m->open_k = 0;
    return 0;
}

static int mock_note(int32_t kind, const char *text, void *payload)
{
    (void)text;
    mock *m = payload;
    ck_assert(kind >= 0 && kind <= 2);
    m->hook_heard[kind]++;
    return m->hook_takes_failed && kind == SPACRBENCH_SCALE_NOTE_FAILED;
}

static spacrbench_scale_executor executor_of(mock *m, int64_t cores)
{
    spacrbench_scale_executor ex;
    ck_assert_int_eq(spacrbench_scale_executor_init(&ex, sizeof ex), 0);
    ck_assert_int_eq(ex.cores, SPACRBENCH_AUTO);
    ex.payload = m;
    ex.cores = cores;
    ex.open = mock_open;
    ex.round = mock_round;
    ex.close = mock_close;
    ex.note = mock_note;
    return ex;
}

/* Run the driver over the mock: n_items items, counts (NULL: default). */
static int run(mock *m, int64_t cores, size_t n_items, const int64_t *counts, size_t n_counts,
               int64_t budget, const spacrbench_scale_timing *t, spacrbench_scale_result **r)
{
    spacrbench_scale_executor ex = executor_of(m, cores);
    spacrbench_scale_options o;
    spacrbench_scale_options_init(&o, sizeof o);
    o.worker_counts = counts;
    o.n_worker_counts = n_counts;
    o.memory_budget_bytes = budget;
    int rc = spacrbench_scale_execute(&ex, n_items, &o, t, r);
    ck_assert_int_eq(m->opens, m->closes); /* every open count was closed */
    return rc;
}

static const int64_t one[] = {1};

/* issue #32's shape: a 1 ms first item and 0.3 s items. The old command
 * sized every round from the warm-up's pace (1.2 s / 1 ms: "up to 105
 * items per copy", 49 s); the rounds are sized from the timed rounds:
 * 3 items (0.9 s, too short), then 4 (1.2 s) twice. */
START_TEST(timed_rounds_are_sized_from_their_own_pace)
{
    mock m = {.warm_item_s = 0.001, .item_s = 0.3};
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(run(&m, 2, 4, one, 1, -1, NULL, &r), 0);
    const int64_t asked[] = {1, 3, 4, 4};
    ck_assert_int_eq(m.rounds, 4);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(m.log_items[i], asked[i]);
    ck_assert_int_eq(m.log_warmup[0], 1);
    ck_assert_int_eq(m.items_run, 12);
    spacrbench_scale_point p = sb_test_point_of(r, 0);
    spacrbench_scale_spread sp = sb_test_spread_of(r, 0);
    ck_assert_int_eq(p.failed, 0);
    ck_assert_int_eq(p.items, 8); /* the two counted repeats; the short one is not */
    ck_assert_double_eq_tol(p.seconds, 2.4, 1e-9);
    ck_assert_double_eq_tol(p.mean_item_seconds, 0.3, 1e-9);
    ck_assert_int_eq(sp.repeats, 2);
    ck_assert_int_eq(sp.warmup_items, 1);
    const char *t = sb_test_note_with(r, "timing: 1 warm-up item(s) per worker untimed");
    ck_assert_ptr_nonnull(t);
    ck_assert_msg(strstr(t, "4 at most here, 1 of 4 rounds redone"), "%s", t);
    spacrbench_scale_free(r);
}
END_TEST

/* A round that stays short however many items it has (a fixed cost) is
 * redone at most 3 times, then counted; the items never shrink. */
START_TEST(a_short_round_is_redone_at_most_three_times)
{
    mock m = {.warm_item_s = 0.01, .round_fixed_s = 0.5};
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(run(&m, 2, 4, one, 1, -1, NULL, &r), 0);
    /* 3 -> 1.2 * 1 s * 3 / 0.5 s = 8 -> 20 -> 48, counted twice. */
    const int64_t asked[] = {1, 3, 8, 20, 48, 48};
    ck_assert_int_eq(m.rounds, 6);
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(m.log_items[i], asked[i]);
    ck_assert_int_eq(sb_test_point_of(r, 0).items, 96);
    ck_assert_int_eq(sb_test_spread_of(r, 0).repeats, 2);
    spacrbench_scale_free(r);
}
END_TEST

/* Growth stops at SPACRBENCH_SCALE_MAX_ROUND_ITEMS: a round there counts. */
START_TEST(the_items_of_a_round_are_capped)
{
    mock m = {.warm_item_s = 1e-9, .item_s = 1e-9};
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(run(&m, 2, 4, one, 1, -1, NULL, &r), 0);
    ck_assert_int_eq(m.log_items[1], 3);
    ck_assert_int_eq(m.log_items[2], SPACRBENCH_SCALE_MAX_ROUND_ITEMS);
    for (int64_t i = 2; i < m.rounds; i++)
        ck_assert_int_le(m.log_items[i], SPACRBENCH_SCALE_MAX_ROUND_ITEMS);
    ck_assert_int_eq(sb_test_spread_of(r, 0).repeats, 2);
    spacrbench_scale_free(r);
}
END_TEST

/* A later count starts from the items the earlier one grew to. */
START_TEST(the_items_only_grow_across_counts)
{
    mock m = {.warm_item_s = 0.001, .item_s = 0.3};
    const int64_t counts[] = {1, 2};
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(run(&m, 2, 4, counts, 2, -1, NULL, &r), 0);
    /* count 1: 1, 3 (short), 4, 4; count 2: 1, 4, 4 */
    ck_assert_int_eq(m.rounds, 7);
    ck_assert_int_eq(m.log_k[4], 2);
    ck_assert_int_eq(m.log_warmup[4], 1);
    ck_assert_int_eq(m.log_index[4], 0);
    ck_assert_int_eq(m.log_items[5], 4);
    ck_assert_int_eq(m.log_items[6], 4);
    ck_assert_int_eq(sb_test_point_of(r, 1).items, 2 * 2 * 4);
    spacrbench_scale_free(r);
}
END_TEST

/* Repeats that differ by more than the target go on to max_repeats; the
 * spread is (max - min) / (2 * mean) of their items/s. */
START_TEST(repeats_go_on_while_they_differ)
{
    mock m = {.warm_item_s = 0.01, .item_s = 0.1, .alt_item_s = 0.2};
    spacrbench_scale_timing t;
    spacrbench_scale_timing_init(&t, sizeof t);
    t.min_seconds = 0;
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(run(&m, 2, 4, one, 1, -1, &t, &r), 0);
    spacrbench_scale_spread sp = sb_test_spread_of(r, 0);
    ck_assert_int_eq(sp.repeats, 5);
    ck_assert_double_eq_tol(sp.items_per_second_min, 5.0, 1e-9);
    ck_assert_double_eq_tol(sp.items_per_second_max, 10.0, 1e-9);
    double mean = (3 * 10.0 + 2 * 5.0) / 5; /* rounds 1..5: 10, 5, 10, 5, 10 items/s */
    ck_assert_double_eq_tol(sp.spread, 5.0 / (2 * mean), 1e-9);
    spacrbench_scale_free(r);
    /* Agreeing repeats stop at min_repeats. */
    mock same = {.warm_item_s = 0.01, .item_s = 0.1};
    ck_assert_int_eq(run(&same, 2, 4, one, 1, -1, &t, &r), 0);
    ck_assert_int_eq(sb_test_spread_of(r, 0).repeats, 2);
    spacrbench_scale_free(r);
}
END_TEST

/* Default counts: 1, then powers of two up to the top count, min(cores,
 * the workers of the 1-worker peak the budget holds + 1). */
START_TEST(the_default_counts_end_at_the_top_count)
{
    mock m = {.warm_item_s = 0.01, .item_s = 0.4, .peak_per_worker = GIB};
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(run(&m, 8, 4, NULL, 0, 3 * GIB, NULL, &r), 0);
    spacrbench_scale_summary s = sb_test_summary_of(r);
    ck_assert_int_eq(s.point_count, 3);
    const int64_t want[] = {1, 2, 4};
    for (size_t i = 0; i < 3; i++)
        ck_assert_int_eq(sb_test_point_of(r, i).workers, want[i]);
    const char *n =
        sb_test_note_with(r, "worker counts up to 4: 8 usable cores, memory for 3 workers");
    ck_assert_ptr_nonnull(n);
    ck_assert_int_eq(sb_test_point_of(r, 2).fits, 0); /* 4 GiB over 3 GiB */
    spacrbench_scale_free(r);
    /* Without memory bound the cores bind; then the one cap. */
    mock big = {.warm_item_s = 0.01, .item_s = 0.4};
    ck_assert_int_eq(run(&big, 5000, 4, NULL, 0, -1, NULL, &r), 0);
    s = sb_test_summary_of(r);
    ck_assert_int_eq(s.point_count, 11);
    ck_assert_int_eq(sb_test_point_of(r, 10).workers, SPACRBENCH_SCALE_MAX_WORKERS);
    ck_assert_ptr_nonnull(sb_test_note_with(r, "memory sets no bound"));
    spacrbench_scale_free(r);
}
END_TEST

/* A budget of 0 B (the reserve takes all the memory): no group limit
 * would let a worker start. The default counts end at 1; counts the caller
 * named run with no limit, and a note says so and what to do. */
START_TEST(a_zero_budget_limits_no_group)
{
    mock d = {.warm_item_s = 0.01, .item_s = 0.4, .peak_per_worker = GIB};
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(run(&d, 8, 8, NULL, 0, 0, NULL, &r), 0);
    ck_assert_int_eq(d.opens, 1);
    ck_assert_int_eq(sb_test_summary_of(r).point_count, 1);
    ck_assert_ptr_null(sb_test_note_with(r, "ran with no limit"));
    spacrbench_scale_free(r);
    mock m = {.warm_item_s = 0.01, .item_s = 0.4, .peak_per_worker = GIB};
    static const int64_t asked[] = {1, 2, 4};
    ck_assert_int_eq(run(&m, 8, 8, asked, 3, 0, NULL, &r), 0);
    ck_assert_int_eq(sb_test_summary_of(r).point_count, 3);
    ck_assert_ptr_nonnull(sb_test_note_with(r, "the memory budget is 0 B (the reserve takes all "
                                               "the memory available), so 2 worker count(s) "
                                               "above 1 ran with no limit"));
    ck_assert_int_eq(sb_test_point_of(r, 1).fits, 0);
    spacrbench_scale_free(r);
}
END_TEST

/* Worker w of a count starts at base + w * n / k; the next count starts
 * where the last one's worker 0 stopped (the items rotate). */
START_TEST(workers_start_spread_over_the_items_and_counts_rotate)
{
    mock m = {.warm_item_s = 0.01, .item_s = 0.1};
    spacrbench_scale_timing t;
    spacrbench_scale_timing_init(&t, sizeof t);
    t.min_items = 2;
    t.min_seconds = 0;
    t.min_repeats = t.max_repeats = 1;
    const int64_t counts[] = {1, 2};
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(run(&m, 2, 10, counts, 2, -1, &t, &r), 0);
    ck_assert_int_eq(m.rounds, 4);
    ck_assert_int_eq(m.log_first0[0], 0); /* count 1: warm-up at 0, timed at 1 */
    ck_assert_int_eq(m.log_first0[1], 1);
    ck_assert_int_eq(m.log_first0[2], 3); /* count 2 begins where count 1 stopped */
    ck_assert_int_eq(m.log_first1[2], 8); /* 3 + 10 / 2 */
    ck_assert_int_eq(m.log_first0[3], 4);
    ck_assert_int_eq(m.log_first1[3], 9);
    spacrbench_scale_free(r);
}
END_TEST

/* A failed round fails its point, names it, ends its workers; the check
 * goes on with the next count. */
START_TEST(a_failed_round_fails_its_point_and_the_check_goes_on)
{
    mock m = {.warm_item_s = 0.01,
              .item_s = 0.4,
              .fail_k = 2,
              .fail_round = 1,
              .fail_end = SPACRBENCH_SCALE_WORKER_FAILED,
              .fail_why = "copy 1 (item b) exited with status 3: sh -c x"};
    const int64_t counts[] = {1, 2, 4};
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(run(&m, 8, 4, counts, 3, -1, NULL, &r), 0);
    ck_assert_int_eq(sb_test_point_of(r, 1).failed, 1);
    ck_assert_int_eq(sb_test_point_of(r, 2).failed, 0);
    ck_assert_int_eq(sb_test_spread_of(r, 1).oom_killed, 0);
    ck_assert_int_eq(m.failed_closes, 1);
    ck_assert_ptr_nonnull(
        sb_test_note_with(r, "2 workers: copy 1 (item b) exited with status 3: sh -c x; "
                             "the point is marked failed"));
    ck_assert_int_eq(m.hook_heard[SPACRBENCH_SCALE_NOTE_FAILED], 1);
    spacrbench_scale_free(r);
    /* Without the executor's words, the workers' ends say it. */
    mock lost = {.warm_item_s = 0.01,
                 .item_s = 0.4,
                 .fail_k = 1,
                 .fail_round = 0,
                 .fail_end = SPACRBENCH_SCALE_WORKER_LOST};
    ck_assert_int_eq(run(&lost, 8, 4, one, 1, -1, NULL, &r), 0);
    ck_assert_int_eq(sb_test_point_of(r, 0).failed, 1);
    ck_assert_int_eq(lost.rounds, 1); /* a failed warm-up: no timed round */
    ck_assert_ptr_nonnull(sb_test_note_with(r,
                                            "1 worker: a worker died or did not finish its items; "
                                            "the point is marked failed"));
    ck_assert_int_eq(sb_test_summary_of(r).chosen_workers, -1);
    spacrbench_scale_free(r);
}
END_TEST

START_TEST(a_count_that_cannot_start_is_a_failed_point)
{
    mock m = {.warm_item_s = 0.01, .item_s = 0.4, .nostart_k = 2};
    const int64_t counts[] = {1, 2, 4};
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(run(&m, 8, 4, counts, 3, -1, NULL, &r), 0);
    spacrbench_scale_point p = sb_test_point_of(r, 1);
    ck_assert_int_eq(p.failed, 1);
    ck_assert_int_eq(p.items, 0);
    ck_assert_double_eq(p.seconds, 0);
    ck_assert_int_eq(m.opens, 2); /* 1 and 4: no close is owed for 2 */
    ck_assert_ptr_nonnull(sb_test_note_with(
        r, "2 workers: fork of worker 2 failed (mock); the point is marked failed"));
    ck_assert_int_eq(sb_test_point_of(r, 2).failed, 0);
    spacrbench_scale_free(r);
}
END_TEST

/* An OOM kill in the count's own cgroup at the budget is a memory point;
 * one at a limit around the group is named as outside; our own SIGKILL
 * (a timeout) is neither. */
START_TEST(an_oom_kill_at_the_budget_is_a_memory_point)
{
    mock m = {.warm_item_s = 0.01,
              .item_s = 0.4,
              .peak_per_worker = 1 << 20,
              .fail_k = 4,
              .fail_round = 1,
              .fail_end = SPACRBENCH_SCALE_WORKER_LOST,
              .fail_sigkilled = 1,
              .oom_k = 4,
              .oom_limit_is_budget = 1};
    const int64_t counts[] = {1, 4};
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(run(&m, 8, 4, counts, 2, 100 << 20, NULL, &r), 0);
    spacrbench_scale_spread sp = sb_test_spread_of(r, 1);
    ck_assert_int_eq(sp.oom_killed, 1);
    ck_assert_int_eq(sp.limit_bytes, 100 << 20);
    spacrbench_scale_summary s = sb_test_summary_of(r);
    ck_assert_int_eq(s.verdict, SPACRBENCH_SCALE_MEMORY);
    ck_assert_int_eq(s.chosen_workers, 1);
    ck_assert_ptr_nonnull(
        sb_test_note_with(r, "4 workers: over the memory budget: OOM-killed in their "
                             "group at its limit of 100.0 MiB (the budget)"));
    spacrbench_scale_free(r);

    m.rounds = m.opens = m.closes = m.failed_closes = 0;
    m.oom_limit_is_budget = 0;
    m.oom_outside = 1;
    ck_assert_int_eq(run(&m, 8, 4, counts, 2, 100 << 20, NULL, &r), 0);
    ck_assert_int_eq(sb_test_spread_of(r, 1).oom_killed, 2);
    ck_assert_ptr_nonnull(strstr(sb_test_summary_of(r).reason, "outside the check's group"));
    /* The driver names the kill in every executor's words. */
    ck_assert_ptr_nonnull(
        sb_test_note_with(r, "4 workers: the kernel's OOM killer ended 1 process(es) while they "
                             "ran (at a limit outside the check's group; counted by the oom_kill "
                             "count of the cgroup that held them)"));
    spacrbench_scale_free(r);

    m.rounds = m.opens = m.closes = m.failed_closes = 0;
    m.oom_ours = 1;
    ck_assert_int_eq(run(&m, 8, 4, counts, 2, 100 << 20, NULL, &r), 0);
    ck_assert_int_eq(sb_test_spread_of(r, 1).oom_killed, 0);
    ck_assert_int_eq(sb_test_point_of(r, 1).failed, 1);
    spacrbench_scale_free(r);
}
END_TEST

/* A stop while a count runs ends the check there (its point failed, never
 * the knee); one before a count's release leaves no point for it. */
START_TEST(a_stop_ends_the_check)
{
    mock m = {.warm_item_s = 0.01, .item_s = 0.4, .stop_k = 2, .stop_round = 1, .stop_kind = 1};
    const int64_t counts[] = {1, 2, 4};
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(run(&m, 8, 4, counts, 3, -1, NULL, &r), 0);
    ck_assert_int_eq(sb_test_summary_of(r).point_count, 2);
    ck_assert_int_eq(sb_test_point_of(r, 1).failed, 1);
    ck_assert_int_eq(sb_test_summary_of(r).chosen_workers, 1);
    ck_assert_ptr_nonnull(
        sb_test_note_with(r, "2 workers: interrupted by signal 15 (mock); the point is "
                             "marked failed"));
    ck_assert_ptr_nonnull(
        sb_test_note_with(r, "stopped during the count of 2 workers (marked failed, "
                             "never the knee); 1 of 3 worker counts measured before it"));
    spacrbench_scale_free(r);
    mock before = {
        .warm_item_s = 0.01, .item_s = 0.4, .stop_k = 2, .stop_round = 0, .stop_kind = 2};
    ck_assert_int_eq(run(&before, 8, 4, counts, 3, -1, NULL, &r), 0);
    ck_assert_int_eq(sb_test_summary_of(r).point_count, 1);
    ck_assert_ptr_nonnull(sb_test_note_with(r, "stopped after 1 of 3 worker counts"));
    ck_assert_ptr_null(sb_test_note_with(r, "the point is marked failed"));
    spacrbench_scale_free(r);
}
END_TEST

/* An executor's error aborts the check with its words; the open count is
 * closed, no result is made. */
START_TEST(an_executor_error_aborts_the_check)
{
    mock m = {.warm_item_s = 0.01, .item_s = 0.4, .error_k = 2, .error_round = 1};
    const int64_t counts[] = {1, 2, 4};
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(run(&m, 8, 4, counts, 3, -1, NULL, &r), SPACRBENCH_ESYSTEM);
    ck_assert_ptr_null(r);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "the mock's pipe broke"));
    ck_assert_int_eq(m.failed_closes, 1);
    ck_assert_int_eq(m.opens, 2);
}
END_TEST

START_TEST(bad_executors_and_timings_are_refused)
{
    mock m = {.item_s = 0.1};
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(spacrbench_scale_execute(NULL, 4, NULL, NULL, &r), SPACRBENCH_EINVAL);
    spacrbench_scale_executor ex = executor_of(&m, 2);
    ck_assert_int_eq(spacrbench_scale_execute(&ex, 4, NULL, NULL, NULL), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_scale_execute(&ex, 0, NULL, NULL, &r), SPACRBENCH_ENOITEMS);
    ex.round = NULL;
    ck_assert_int_eq(spacrbench_scale_execute(&ex, 4, NULL, NULL, &r), SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "round"));
    ex = executor_of(&m, 2);
    ex.flags = 0x40;
    ck_assert_int_eq(spacrbench_scale_execute(&ex, 4, NULL, NULL, &r), SPACRBENCH_EINVAL);
    ex = executor_of(&m, 2);
    spacrbench_scale_timing t;
    spacrbench_scale_timing_init(&t, sizeof t);
    t.min_items = SPACRBENCH_SCALE_MAX_ROUND_ITEMS + 1;
    ck_assert_int_eq(spacrbench_scale_execute(&ex, 4, NULL, &t, &r), SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "min_items"));
    spacrbench_scale_timing_init(&t, sizeof t);
    t.warmup_items = 1000001;
    ck_assert_int_eq(spacrbench_scale_execute(&ex, 4, NULL, &t, &r), SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "warmup_items"));
    spacrbench_scale_options o;
    spacrbench_scale_options_init(&o, sizeof o);
    const int64_t too_many[] = {SPACRBENCH_SCALE_MAX_WORKERS + 1};
    o.worker_counts = too_many;
    o.n_worker_counts = 1;
    ck_assert_int_eq(spacrbench_scale_execute(&ex, 4, &o, NULL, &r), SPACRBENCH_EINVAL);
    const int64_t twice[] = {2, 2};
    o.worker_counts = twice;
    o.n_worker_counts = 2;
    ck_assert_int_eq(spacrbench_scale_execute(&ex, 4, &o, NULL, &r), SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "twice"));
    ck_assert_ptr_null(r);
    ck_assert_int_eq(m.rounds, 0); /* nothing ran */
    spacrbench_scale_driver *none = NULL;
    ck_assert_int_eq(spacrbench_scale_driver_note(none, "x"), SPACRBENCH_EINVAL);
}
END_TEST

/* The front end's hook hears every note the driver makes; one it takes
 * (said elsewhere) is not kept. */
START_TEST(the_note_hook_hears_every_note)
{
    mock m = {.warm_item_s = 0.01,
              .item_s = 0.4,
              .fail_k = 2,
              .fail_round = 1,
              .fail_end = SPACRBENCH_SCALE_WORKER_FAILED,
              .fail_why = "the work raised ValueError('bad')",
              .hook_takes_failed = 1};
    const int64_t counts[] = {1, 2};
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(run(&m, 8, 4, counts, 2, 1 << 30, NULL, &r), 0);
    ck_assert_int_eq(m.hook_heard[SPACRBENCH_SCALE_NOTE_FAILED], 1);
    ck_assert_int_ge(m.hook_heard[SPACRBENCH_SCALE_NOTE_METHOD], 1);
    ck_assert_ptr_null(sb_test_note_with(r, "ValueError"));
    ck_assert_ptr_nonnull(sb_test_note_with(r, "timing: "));
    spacrbench_scale_free(r);
}
END_TEST

static Suite *driver_suite(void)
{
    Suite *s = suite_create("scale_driver");
    TCase *t = tcase_create("timing");
    tcase_add_test(t, a_zero_budget_limits_no_group);
    tcase_add_test(t, timed_rounds_are_sized_from_their_own_pace);
    tcase_add_test(t, a_short_round_is_redone_at_most_three_times);
    tcase_add_test(t, the_items_of_a_round_are_capped);
    tcase_add_test(t, the_items_only_grow_across_counts);
    tcase_add_test(t, repeats_go_on_while_they_differ);
    suite_add_tcase(s, t);
    t = tcase_create("counts");
    tcase_add_test(t, the_default_counts_end_at_the_top_count);
    tcase_add_test(t, workers_start_spread_over_the_items_and_counts_rotate);
    suite_add_tcase(s, t);
    t = tcase_create("ends");
    tcase_add_test(t, a_failed_round_fails_its_point_and_the_check_goes_on);
    tcase_add_test(t, a_count_that_cannot_start_is_a_failed_point);
    tcase_add_test(t, an_oom_kill_at_the_budget_is_a_memory_point);
    tcase_add_test(t, a_stop_ends_the_check);
    tcase_add_test(t, an_executor_error_aborts_the_check);
    tcase_add_test(t, bad_executors_and_timings_are_refused);
    tcase_add_test(t, the_note_hook_hears_every_note);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(driver_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
