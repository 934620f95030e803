/* Building and showing the command line `spacrbench run` executes for an
 * item: "{}" placeholders replaced by the item, no shell involved. */
#ifndef SPACRBENCH_CLI_COMMAND_LINE_H
#define SPACRBENCH_CLI_COMMAND_LINE_H

#include <stddef.h>
#include <stdio.h>

/* argv for one item: every "{}" in every argument replaced by item; when
 * no argument holds "{}", the item is appended as the last argument.
 * NULL-terminated, free with command_free. NULL when out of memory. */
char **command_for_item(char *const *cmd, size_t n, const char *item);
void command_free(char **argv);

/* The command as a shell would need it typed (single quotes where needed),
 * for messages. Caller frees. */
char *command_display(char *const *argv);

/* Free a list of n owned strings (item_list.c reads lists). */
void items_free(char **items, size_t n);

#endif
