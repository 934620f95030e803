/* A macOS program that discovers the machine, benchmarks a work function
 * and prints the recommendation. tests/macos/run.sh compiles and links it
 * against the cross-built libspacrbench.dylib; it never runs there (no
 * Mac), so it only has to show that the calls resolve. */
#include <spacrbench.h>

#include <inttypes.h>
#include <stdio.h>

static int SPACRBENCH_CALLBACK work(void *item, void *payload)
{
    (void)payload;
    volatile int *n = item;
    return *n < 0;
}

int main(void)
{
    spacrbench_machine machine = {.size = sizeof machine};
    int rc = spacrbench_discover(&machine);
    if (rc != 0) {
        fprintf(stderr, "discover: %s\n", spacrbench_last_error_message());
        return 1;
    }
    int values[2] = {1, 2};
    void *items[2] = {&values[0], &values[1]};
    spacrbench_options opts = SPACRBENCH_OPTIONS_INIT;
    spacrbench_measurement *m = NULL;
    if ((rc = spacrbench_benchmark(work, items, 2, NULL, &opts, &m)) != 0) {
        fprintf(stderr, "benchmark: %s\n", spacrbench_strerror(rc));
        return 1;
    }
    spacrbench_recommendation rec = {.size = sizeof rec};
    rc = spacrbench_recommend(m, NULL, &rec);
    printf("%" PRId64 " cores, %" PRId64 " B available, %" PRId64 " workers\n", machine.cores,
           machine.available_bytes, rc == 0 ? rec.workers : -1);
    spacrbench_measurement_free(m);
    return rc != 0;
}
