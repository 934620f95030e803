/* What is generated from the option tables: `COMMAND --help`, the version,
 * the man page (roff) and the bash and zsh completions. */
#include <errno.h>
#include <string.h>

#include "cli.h"

const cli_command *const cli_commands[] = {&cli_demo_command, &cli_run_command,
                                           &cli_summarize_command, NULL};

/* Column where an option's help starts. */
#define HELP_COLUMN 22

static const char k_exit_status[] =
    "0 ok, 1 the measurement failed, 2 bad command line, 3 a measured command "
    "failed or the run was interrupted (the partial report is printed), 126 the "
    "command was found but cannot be executed, 127 the command was not found";

static const cli_command *cli_command_named(const char *name)
{
    for (size_t i = 1; name && cli_commands[i]; i++)
        if (strcmp(cli_commands[i]->name, name) == 0)
            return cli_commands[i];
    return NULL;
}

/* Write text from column `at` (already reached), wrapped to CLI_HELP_WIDTH
 * with continuation lines indented by indent; '\n' forces a break. */
static void wrap(FILE *out, const char *text, size_t at, size_t indent)
{
    size_t col = at;
    int first = 1;
    for (const char *p = text; *p;) {
        size_t word = strcspn(p, " \n");
        if (*p == '\n' || (!first && col + 1 + word > CLI_HELP_WIDTH)) {
            fprintf(out, "\n%*s", (int)indent, "");
            col = indent;
            first = 1;
        }
        if (*p == '\n') {
            p++;
            continue;
        }
        if (!first) {
            fputc(' ', out);
            col++;
        }
        fprintf(out, "%.*s", (int)word, p);
        col += word;
        first = 0;
        p += word;
        while (*p == ' ')
            p++;
    }
    fputc('\n', out);
}

static void print_option(FILE *out, const cli_option *o)
{
    char head[96], letter[8] = "";
    if (o->letter)
        snprintf(letter, sizeof letter, "-%c, ", o->letter);
    snprintf(head, sizeof head, "  %s--%s%s%s", letter, o->name, o->value ? " " : "",
             o->value ? o->value : "");
    size_t n = strlen(head);
    fputs(head, out);
    if (n + 2 > HELP_COLUMN) { /* too long: the help starts on the next line */
        fprintf(out, "\n%*s", HELP_COLUMN, "");
    } else
        fprintf(out, "%*s", (int)(HELP_COLUMN - n), "");
    wrap(out, o->help, HELP_COLUMN, HELP_COLUMN);
}

static void print_usage_lines(FILE *out, const cli_command *cmd)
{
    if (cmd->name) {
        fprintf(out, "usage: spacrbench %s %s\n", cmd->name, cmd->synopsis);
        return;
    }
    const char *lead = "usage:";
    for (size_t i = 0; cli_commands[i]; i++) {
        const cli_command *c = cli_commands[i];
        fprintf(out, "%-6s spacrbench%s%s %s\n", lead, c->name ? " " : "", c->name ? c->name : "",
                c->synopsis);
        lead = "";
    }
    fprintf(out, "%-6s spacrbench help [COMMAND]\n", "");
}

void cli_print_help(FILE *out, const cli_command *cmd)
{
    print_usage_lines(out, cmd);
    fputc('\n', out);
    wrap(out, cmd->description, 0, 0);
    if (!cmd->name) {
        fputs("\ncommands:\n", out);
        for (size_t i = 1; cli_commands[i]; i++) {
            fprintf(out, "  %-*s", HELP_COLUMN - 2, cli_commands[i]->name);
            wrap(out, cli_commands[i]->summary, HELP_COLUMN, HELP_COLUMN);
        }
        fprintf(out, "  %-*s", HELP_COLUMN - 2, "help COMMAND");
        wrap(out, "the help of COMMAND (as COMMAND --help)", HELP_COLUMN, HELP_COLUMN);
    }
    for (size_t i = 0; i < cmd->n_sections; i++) {
        fprintf(out, "\n%s:\n", cmd->sections[i]->title);
        for (size_t k = 0; k < cmd->sections[i]->n_options; k++)
            print_option(out, &cmd->sections[i]->options[k]);
    }
    fputs("\nexit status: ", out);
    wrap(out, cmd->exit_status ? cmd->exit_status : k_exit_status, 13, 13);
}

void cli_print_version(FILE *out)
{
    fprintf(out, "spacrbench %s (library %s)\n", SPACRBENCH_VERSION_STRING,
            spacrbench_version_string());
}

/* roff: backslashes and hyphens escaped, no line starting with a control
 * character; `code` as in the help becomes bold (a lone backtick closes at
 * the end, so the font never leaks into the next paragraph). */
static void roff(FILE *out, const char *text)
{
    int line_start = 1, bold = 0;
    for (const char *p = text; *p; p++) {
        if (line_start && (*p == '.' || *p == '\''))
            fputs("\\&", out);
        line_start = *p == '\n';
        if (*p == '`') {
            fputs(bold ? "\\fR" : "\\fB", out);
            bold = !bold;
        } else if (*p == '\\')
            fputs("\\e", out);
        else if (*p == '-')
            fputs("\\-", out);
        else
            fputc(*p, out);
    }
    if (bold)
        fputs("\\fR", out);
}

static void man_option(FILE *out, const cli_option *o)
{
    fputs(".TP\n", out);
    if (o->letter)
        fprintf(out, "\\fB\\-%c\\fR, ", o->letter);
    fputs("\\fB\\-\\-", out);
    roff(out, o->name);
    fputs("\\fR", out);
    if (o->value) {
        fputs(" \\fI", out);
        roff(out, o->value);
        fputs("\\fR", out);
    }
    fputc('\n', out);
    roff(out, o->help);
    fputc('\n', out);
}

static void cli_print_man(FILE *out)
{
    fprintf(out, ".\\\" Generated by `spacrbench --generate man` from its option tables.\n");
    fprintf(out, ".TH SPACRBENCH 1 \"\" \"spacrbench %s\" \"User Commands\"\n",
            SPACRBENCH_VERSION_STRING);
    fputs(".SH NAME\nspacrbench \\- measure what one worker needs and recommend a worker "
          "count\n.SH SYNOPSIS\n",
          out);
    for (size_t i = 0; cli_commands[i]; i++) {
        const cli_command *c = cli_commands[i];
        fputs(i ? ".br\n.B spacrbench" : ".B spacrbench", out);
        if (c->name)
            fprintf(out, " %s", c->name);
        fputc('\n', out);
        roff(out, c->synopsis);
        fputc('\n', out);
    }
    fputs(".br\n.B spacrbench help\n[COMMAND]\n.SH DESCRIPTION\n", out);
    roff(out, cli_commands[0]->description);
    fputs("\n.SH COMMANDS\n", out);
    for (size_t i = 1; cli_commands[i]; i++) {
        fprintf(out, ".TP\n.B %s\n", cli_commands[i]->name);
        roff(out, cli_commands[i]->summary);
        fputc('\n', out);
    }
    fputs(".TP\n.B help \\fICOMMAND\\fR\nthe help of COMMAND (as COMMAND \\-\\-help)\n", out);
    for (size_t i = 0; cli_commands[i]; i++) {
        const cli_command *c = cli_commands[i];
        fprintf(out, ".SH \"OPTIONS OF SPACRBENCH%s%s\"\n", c->name ? " " : "",
                c->name ? c->name : "");
        if (c->name) {
            roff(out, c->description);
            fputc('\n', out);
        }
        for (size_t s = 0; s < c->n_sections; s++) {
            fputs(".SS \"", out);
            roff(out, c->sections[s]->title);
            fputs("\"\n", out);
            for (size_t k = 0; k < c->sections[s]->n_options; k++)
                man_option(out, &c->sections[s]->options[k]);
        }
    }
    fputs(".SH \"EXIT STATUS\"\n", out);
    roff(out, k_exit_status);
    for (size_t i = 0; cli_commands[i]; i++)
        if (cli_commands[i]->name && cli_commands[i]->exit_status) {
            fputs("\n.PP\n\\fBspacrbench ", out);
            roff(out, cli_commands[i]->name);
            fputs("\\fR: ", out);
            roff(out, cli_commands[i]->exit_status);
        }
    fputs("\n.SH \"SEE ALSO\"\nThe documentation in docs/cli.md of the spacrbench sources.\n", out);
}

/* The command names after the demo, joined by sep. */
static void names(FILE *out, const char *sep)
{
    for (size_t i = 1; cli_commands[i]; i++)
        fprintf(out, "%s%s", i > 1 ? sep : "", cli_commands[i]->name);
}

/* Every option of cmd, in help order, into o; how many. */
static size_t options_of(const cli_command *cmd, const cli_option **o)
{
    size_t n = 0;
    for (size_t s = 0; s < cmd->n_sections; s++)
        for (size_t k = 0; k < cmd->sections[s]->n_options && n < 64; k++)
            o[n++] = &cmd->sections[s]->options[k];
    return n;
}

static void cli_print_bash_completion(FILE *out)
{
    fputs("# bash completion for spacrbench, generated by `spacrbench --generate bash` from\n"
          "# its option tables.\n"
          "_spacrbench() {\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
          "    local cmd= i\n"
          "    if ((COMP_CWORD > 1)); then\n"
          "        case ${COMP_WORDS[1]} in\n        ",
          out);
    names(out, "|");
    fputs("|help) cmd=${COMP_WORDS[1]} ;;\n        esac\n    fi\n"
          "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
          "        # After \"--\" comes the measured command: complete it as a command line.\n"
          "        if [[ ${COMP_WORDS[i]} == -- ]]; then\n"
          "            compopt -o default 2>/dev/null\n            COMPREPLY=()\n"
          "            return 0\n        fi\n    done\n"
          "    case $prev in\n",
          out);
    /* Values: files, directories, choices, or free text. */
    const cli_option *o[64];
    for (size_t i = 0; cli_commands[i]; i++)
        for (size_t k = 0, n = options_of(cli_commands[i], o); k < n; k++) {
            if (!o[k]->value)
                continue;
            fprintf(out, "    --%s)\n        ", o[k]->name);
            if (o[k]->choices)
                fprintf(out, "COMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))", o[k]->choices);
            else
                fputs(o[k]->complete == CLI_COMPLETE_FILE  ? "COMPREPLY=($(compgen -f -- \"$cur\"))"
                      : o[k]->complete == CLI_COMPLETE_DIR ? "COMPREPLY=($(compgen -d -- \"$cur\"))"
                                                           : "COMPREPLY=()",
                      out);
            fputs("\n        return 0 ;;\n", out);
        }
    fputs("    esac\n    local opts\n    case $cmd in\n", out);
    for (size_t i = 0; cli_commands[i]; i++) {
        fprintf(out, "    %s) opts=\"", cli_commands[i]->name ? cli_commands[i]->name : "''");
        for (size_t k = 0, n = options_of(cli_commands[i], o); k < n; k++) {
            fprintf(out, "%s--%s", k ? " " : "", o[k]->name);
            if (o[k]->letter)
                fprintf(out, " -%c", o[k]->letter);
        }
        fputs("\" ;;\n", out);
    }
    fputs("    help)\n        COMPREPLY=($(compgen -W \"", out);
    names(out, " ");
    fputs("\" -- \"$cur\"))\n        return 0 ;;\n    esac\n"
          "    if [[ $cur == -* ]]; then\n"
          "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
          "    elif [[ -z $cmd ]]; then\n"
          "        COMPREPLY=($(compgen -W \"",
          out);
    names(out, " ");
    fputs(" help\" -- \"$cur\"))\n"
          "    else\n"
          "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
          "    fi\n"
          "}\n"
          "complete -F _spacrbench spacrbench\n",
          out);
}

/* One zsh spec of o as flag; its help is the first clause, without the
 * characters the spec or the quoting would take. */
static void zsh_spec(FILE *out, const cli_option *o, const char *flag)
{
    fprintf(out, "        '%s%s[", flag, o->value ? "=" : "");
    size_t n = strcspn(o->help, ";(:");
    for (n = n > 70 ? 70 : n; n > 0 && o->help[n - 1] == ' ';)
        n--;
    for (size_t i = 0; i < n; i++)
        fputc(strchr("[]'\\`$", o->help[i]) ? ' ' : o->help[i], out);
    fputc(']', out);
    if (o->value) {
        fputc(':', out);
        for (const char *p = o->value; *p; p++)
            fputc(strchr("|:'", *p) ? '/' : *p, out);
        fputc(':', out);
        if (o->choices)
            fprintf(out, "(%s)", o->choices);
        else
            fputs(o->complete == CLI_COMPLETE_FILE  ? "_files"
                  : o->complete == CLI_COMPLETE_DIR ? "_files -/"
                                                    : " ",
                  out);
    }
    fputs("' \\\n", out);
}

static void zsh_arguments(FILE *out, const cli_command *cmd)
{
    const cli_option *o[64];
    fputs("        _arguments -s \\\n", out);
    for (size_t k = 0, n = options_of(cmd, o); k < n; k++) {
        char flag[80];
        snprintf(flag, sizeof flag, "--%s", o[k]->name);
        zsh_spec(out, o[k], flag);
        snprintf(flag, sizeof flag, "-%c", o[k]->letter);
        if (o[k]->letter)
            zsh_spec(out, o[k], flag);
    }
}

static void cli_print_zsh_completion(FILE *out)
{
    fputs("#compdef spacrbench\n"
          "# zsh completion for spacrbench, generated by `spacrbench --generate zsh` from\n"
          "# its option tables.\n"
          "_spacrbench() {\n"
          "    local cmd=${words[2]}\n"
          "    case $cmd in\n",
          out);
    for (size_t i = 1; cli_commands[i]; i++) {
        fprintf(out, "    %s)\n        shift words\n        (( CURRENT-- ))\n",
                cli_commands[i]->name);
        zsh_arguments(out, cli_commands[i]);
        fprintf(out, "        %s\n        ;;\n",
                cli_commands[i]->takes_operands ? "'*:item or command:_files'"
                                                : "'*:directory:_files -/'");
    }
    fputs("    help)\n        _arguments '2:command:(", out);
    names(out, " ");
    fputs(")'\n        ;;\n    *)\n", out);
    zsh_arguments(out, cli_commands[0]);
    fputs("        '1:command:(", out);
    names(out, " ");
    fputs(" help)'\n        ;;\n    esac\n}\n_spacrbench \"$@\"\n", out);
}

int cli_help_main(int argc, char **argv)
{
    if (argc > 2)
        return cli_usage_error("help", "expected at most one command, got '%s %s'", argv[1],
                               argv[2]);
    const cli_command *cmd = argc == 2 ? cli_command_named(argv[1]) : cli_commands[0];
    if (!cmd)
        return cli_usage_error("help", "no command '%s' (the commands: run, summarize)", argv[1]);
    cli_print_help(stdout, cmd);
    return CLI_EXIT_OK;
}

int cli_generate_main(int argc, char **argv)
{
    const char *what = argc >= 2 ? argv[1] : "";
    void (*print)(FILE *) = strcmp(what, "man") == 0    ? cli_print_man
                            : strcmp(what, "bash") == 0 ? cli_print_bash_completion
                            : strcmp(what, "zsh") == 0  ? cli_print_zsh_completion
                                                        : NULL;
    if (!print || argc > 3)
        return cli_usage_error("--generate", "expected man, bash or zsh, and an optional FILE");
    FILE *out = argc == 3 ? fopen(argv[2], "w") : stdout;
    if (out)
        print(out);
    if (!out || (out != stdout && fclose(out) != 0))
        return cli_error(CLI_EXIT_ERROR, "--generate: cannot write %s: %s", argv[2],
                         strerror(errno));
    return CLI_EXIT_OK;
}
