// The installed header from C++ (tests/consumer/run.sh): it compiles with
// -Wall -Wextra -Wpedantic -Werror, its declarations have C linkage (the
// program links against the C library) and the *_INIT macros initialise.
#include <spacrbench.h>

#include <cstdio>

static int SPACRBENCH_CALLBACK count_item(void *item, void *payload)
{
    (void)item;
    ++*static_cast<int *>(payload);
    return 0;
}

int main()
{
    spacrbench_options opts = SPACRBENCH_OPTIONS_INIT;
    spacrbench_recommend_options ropts = SPACRBENCH_RECOMMEND_OPTIONS_INIT;
    int values[2] = {1, 2};
    void *items[2] = {&values[0], &values[1]};
    int calls = 0;
    spacrbench_measurement *m = nullptr;
    int rc = spacrbench_benchmark(count_item, items, 2, &calls, &opts, &m);
    if (rc != SPACRBENCH_OK) {
        std::fprintf(stderr, "consumer_cxx: %s (%s)\n", spacrbench_strerror(rc),
                     spacrbench_last_error_message());
        return 1;
    }
    spacrbench_recommendation rec = {};
    rec.size = sizeof rec;
    rc = spacrbench_recommend(m, &ropts, &rec);
    spacrbench_measurement_free(m);
    if (rc != SPACRBENCH_OK || calls != 2 || rec.workers < 1) {
        std::fprintf(stderr, "consumer_cxx: rc %d, %d calls, %lld workers\n", rc, calls,
                     static_cast<long long>(rec.workers));
        return 1;
    }
    std::printf("consumer_cxx OK: C++ %ld, %s, %lld workers, %s = \"%s\"\n",
                static_cast<long>(__cplusplus), spacrbench_version_string(),
                static_cast<long long>(rec.workers), spacrbench_error_name(SPACRBENCH_EUNSUPPORTED),
                spacrbench_strerror(SPACRBENCH_EUNSUPPORTED));
    return 0;
}
