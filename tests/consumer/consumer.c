/* An out-of-tree program using only the installed public API: benchmark a
 * work function that touches a known amount of memory per item, recommend a
 * worker count and print the report. Exits non-zero when the library's
 * answers do not hold together, so the install test checks more than
 * "it links". */
#include <spacrbench.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define ITEM_BYTES ((size_t)48 << 20) /* 48 MiB touched per item */

/* Touch every page so the memory is really resident, then let it go. */
static int touch_memory(void *item, void *payload)
{
    (void)payload;
    size_t bytes = *(const size_t *)item;
    volatile unsigned char *block = malloc(bytes);
    if (block == NULL)
        return 1;
    for (size_t i = 0; i < bytes; i += 4096)
        block[i] = (unsigned char)i;
    free((void *)block);
    return 0;
}

static int fail(const char *what, int code)
{
    fprintf(stderr, "consumer: %s failed: %s (%s)\n", what, spacrbench_strerror(code),
            spacrbench_last_error_message());
    return 1;
}

int main(void)
{
    if (spacrbench_version_number() != SPACRBENCH_VERSION_NUMBER) {
        fprintf(stderr, "consumer: header %d but library %u\n", SPACRBENCH_VERSION_NUMBER,
                spacrbench_version_number());
        return 1;
    }

    size_t sizes[4] = {ITEM_BYTES, ITEM_BYTES, ITEM_BYTES, ITEM_BYTES};
    void *items[4] = {&sizes[0], &sizes[1], &sizes[2], &sizes[3]};
    spacrbench_options opts = SPACRBENCH_OPTIONS_INIT;
    spacrbench_measurement *m = NULL;
    int rc = spacrbench_benchmark(touch_memory, items, 4, NULL, &opts, &m);
    if (rc != 0)
        return fail("spacrbench_benchmark", rc);

    int status = 0;
    int64_t work = spacrbench_measurement_work_rss_bytes(m);
    /* The allocator and page rounding may add a little; the kernel's
     * high-water mark cannot report less than what was touched. */
    if (work < (int64_t)(ITEM_BYTES - ITEM_BYTES / 16)) {
        fprintf(stderr, "consumer: work footprint %" PRId64 " B, expected >= ~%zu B\n", work,
                ITEM_BYTES);
        status = 1;
    }

    spacrbench_recommendation rec = {.size = sizeof rec};
    rc = spacrbench_recommend(m, NULL, &rec);
    if (rc != 0) {
        spacrbench_measurement_free(m);
        return fail("spacrbench_recommend", rc);
    }
    if (rec.workers < 1) {
        fprintf(stderr, "consumer: recommended %" PRId64 " workers\n", rec.workers);
        status = 1;
    }

    int len = spacrbench_format_report(m, &rec, NULL, 0);
    char *report = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (report == NULL || spacrbench_format_report(m, &rec, report, (size_t)len + 1) != len) {
        fprintf(stderr, "consumer: spacrbench_format_report failed (%d)\n", len);
        status = 1;
    } else {
        fputs(report, stdout);
        if (len == 0 || report[len - 1] != '\n')
            putchar('\n');
    }
    free(report);
    spacrbench_measurement_free(m);

    if (status == 0)
        printf("consumer OK: spacrbench %s, work footprint %" PRId64 " B, %" PRId64 " workers\n",
               spacrbench_version_string(), work, rec.workers);
    return status;
}
