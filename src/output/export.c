/* spacrbench_format_export: checks the arguments, then hands them to the
 * format's file (export.h). */
#include "export.h"

static const struct {
    int format;
    sb_export_fn write;
} formats[] = {{SPACRBENCH_FORMAT_MARKDOWN, sb_export_markdown},
               {SPACRBENCH_FORMAT_CSV, sb_export_csv}};

const char *sb_export_label(const sb_export_input *in, size_t i)
{
    return in->labels && i < in->n_labels ? in->labels[i] : NULL;
}

int spacrbench_format_export(const spacrbench_measurement *m, const spacrbench_recommendation *rec,
                             int format, const char *const *item_labels, size_t n_labels, char *buf,
                             size_t cap)
{
    sb_clear_error();
    if (!m)
        return sb_fail(SPACRBENCH_EINVAL, "measurement must not be NULL");
    if (!buf && cap)
        return sb_fail(SPACRBENCH_EINVAL, "buf is NULL but cap is %zu", cap);
    if (!item_labels && n_labels)
        return sb_fail(SPACRBENCH_EINVAL, "item_labels is NULL but n_labels is %zu", n_labels);
    sb_export_fn write = NULL;
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (formats[i].format == format)
            write = formats[i].write;
    if (!write)
        return sb_fail(SPACRBENCH_EINVAL,
                       "format %d is not a spacrbench_export_format (MARKDOWN %d, CSV %d)", format,
                       SPACRBENCH_FORMAT_MARKDOWN, SPACRBENCH_FORMAT_CSV);
    spacrbench_recommendation r;
    if (rec) {
        int rc = sb_recommendation_in(&r, rec);
        if (rc)
            return rc;
    }
    sb_export_input in = {m, rec ? &r : NULL, item_labels, n_labels};
    sb_text t = {0};
    write(&t, &in);
    return sb_text_deliver(&t, buf, cap);
}
