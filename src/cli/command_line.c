/* See command_line.h. */
#include "command_line.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "text_escape.h"

static char *substitute(const char *arg, const char *item)
{
    size_t count = 0, n = strlen(arg), k = strlen(item);
    for (const char *p = arg; (p = strstr(p, "{}")) != NULL; p += 2)
        count++;
    char *out = malloc(n + count * k + 1);
    if (!out)
        return NULL;
    char *o = out;
    for (const char *p = arg; *p;) {
        if (p[0] == '{' && p[1] == '}') {
            memcpy(o, item, k);
            o += k;
            p += 2;
        } else
            *o++ = *p++;
    }
    *o = '\0';
    return out;
}

char **command_for_item(char *const *cmd, size_t n, const char *item)
{
    int placeholder = 0;
    for (size_t i = 0; i < n; i++)
        placeholder |= strstr(cmd[i], "{}") != NULL;
    size_t total = n + (placeholder ? 0 : 1);
    char **argv = calloc(total + 1, sizeof *argv);
    if (!argv)
        return NULL;
    for (size_t i = 0; i < total; i++) {
        argv[i] = i < n ? substitute(cmd[i], item) : strdup(item);
        if (!argv[i]) {
            command_free(argv);
            return NULL;
        }
    }
    return argv;
}

void command_free(char **argv)
{
    for (size_t i = 0; argv && argv[i]; i++)
        free(argv[i]);
    free(argv);
}

static int plain(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=./,:@%", *s))
            return 0;
    return 1;
}

char *command_display(char *const *argv)
{
    size_t cap = 1;
    for (size_t i = 0; argv[i]; i++)
        cap += 4 * sb_escaped_length(argv[i]) + 3; /* every ' becomes '\'' */
    char *out = malloc(cap), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 0; argv[i]; i++) {
        if (i)
            *o++ = ' ';
        if (plain(argv[i])) {
            size_t k = strlen(argv[i]);
            memcpy(o, argv[i], k);
            o += k;
            continue;
        }
        /* Control characters are shown escaped (a message, not a script):
         * an item must not forge lines or drive the terminal. */
        char *shown = sb_escape_text(argv[i]);
        if (!shown) {
            free(out);
            return NULL;
        }
        *o++ = '\'';
        for (const char *p = shown; *p; p++) {
            if (*p == '\'') {
                memcpy(o, "'\\''", 4);
                o += 4;
            } else
                *o++ = *p;
        }
        *o++ = '\'';
        free(shown);
    }
    *o = '\0';
    return out;
}

void items_free(char **items, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(items[i]);
    free(items);
}
