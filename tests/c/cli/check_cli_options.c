/* The command's option tables and what is generated from them: every
 * option of a command is in its `--help`, the man page and both shell
 * completions; an option's fixed values complete in bash (`run --scale`
 * offers `auto`); no help line is wider than 79 columns; `help COMMAND`,
 * `COMMAND --help`, `-V` and the exit codes; the one size parser
 * (spacrbench_parse_size) and --reserve's units. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cli_test_support.h"
#include "spacrbench.h"

/* `spacrbench ARGS...`: stdout, asserting exit 0. */
static char *help_of(const char *a1, const char *a2)
{
    char *const argv[] = {SPACRBENCH_CLI, (char *)a1, (char *)a2, NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "%s %s: exit %d: %s", a1, a2 ? a2 : "", r.code, r.err);
    char *out = strdup(r.raw);
    cli_result_free(&r);
    return out;
}

static void assert_lines_fit(const char *text, const char *what)
{
    int line = 1;
    for (const char *p = text; *p; line++) {
        size_t n = strcspn(p, "\n");
        ck_assert_msg(n <= CLI_HELP_WIDTH, "%s, line %d is %zu columns: %.*s", what, line, n,
                      (int)n, p);
        p += n + (p[n] == '\n');
    }
}

/* "--name" at a word boundary of text (not inside "--name-more"). */
static int has_option(const char *text, const char *prefix, const char *name)
{
    char want[128];
    snprintf(want, sizeof want, "%s%s", prefix, name);
    for (const char *p = text; (p = strstr(p, want)) != NULL; p++) {
        char after = p[strlen(want)];
        if (!(after == '-' || (after >= 'a' && after <= 'z')))
            return 1;
    }
    return 0;
}

static char *generated(const char *what)
{
    char *const argv[] = {SPACRBENCH_CLI, "--generate", (char *)what, NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "--generate %s: exit %d: %s", what, r.code, r.err);
    char *out = strdup(r.raw);
    cli_result_free(&r);
    return out;
}

START_TEST(every_option_is_in_help_man_and_completions)
{
    char *man = generated("man"), *bash = generated("bash"), *zsh = generated("zsh");
    for (size_t i = 0; cli_commands[i]; i++) {
        const cli_command *c = cli_commands[i];
        char *help = help_of(c->name ? c->name : "--help", c->name ? "--help" : NULL);
        ck_assert_msg(strstr(help, "usage: spacrbench") == help, "%s", help);
        assert_lines_fit(help, c->name ? c->name : "spacrbench");
        if (c->name) { /* `help COMMAND` is `COMMAND --help` */
            char *again = help_of("help", c->name);
            ck_assert_str_eq(again, help);
            free(again);
            char usage[64];
            snprintf(usage, sizeof usage, "usage: spacrbench %s ", c->name);
            ck_assert_ptr_nonnull(strstr(help, usage));
        }
        size_t options = 0;
        for (size_t s = 0; s < c->n_sections; s++)
            for (size_t k = 0; k < c->sections[s]->n_options; k++, options++) {
                const cli_option *o = &c->sections[s]->options[k];
                ck_assert_msg(has_option(help, "--", o->name), "--%s not in %s's help", o->name,
                              c->name ? c->name : "spacrbench");
                char roff_name[128] = "";
                for (const char *p = o->name; *p; p++)
                    strncat(roff_name, *p == '-' ? "\\-" : (char[]){*p, 0},
                            sizeof roff_name - strlen(roff_name) - 1);
                ck_assert_msg(has_option(man, "\\-\\-", roff_name), "--%s not in the man page",
                              o->name);
                ck_assert_msg(has_option(bash, "--", o->name), "--%s not in bash's", o->name);
                ck_assert_msg(has_option(zsh, "'--", o->name), "--%s not in zsh's", o->name);
                ck_assert_msg(o->help && *o->help, "--%s has no help", o->name);
                if (o->value) {
                    char spelled[160];
                    snprintf(spelled, sizeof spelled, "--%s %s", o->name, o->value);
                    ck_assert_msg(strstr(help, spelled) != NULL, "'%s' not in the help", spelled);
                }
            }
        ck_assert_uint_gt(options, 1);
        free(help);
    }
    ck_assert_ptr_nonnull(strstr(man, ".TH SPACRBENCH 1"));
    ck_assert_ptr_nonnull(strstr(bash, "complete -F _spacrbench spacrbench"));
    ck_assert_int_eq(strncmp(zsh, "#compdef spacrbench\n", 20), 0);
    free(man);
    free(bash);
    free(zsh);
}
END_TEST

/* The files the build generated are the ones the command prints, and
 * they parse: roff through man (or groff) when installed, bash and zsh
 * with -n. */
START_TEST(generated_files_are_built_and_parse)
{
    /* The file is $F. */
    static const struct {
        const char *what, *path, *check;
    } files[] = {
        {"man", SPACRBENCH_MAN_PAGE,
         "MANWIDTH=80 man -l \"$F\" 2>&1 >/dev/null | grep . && exit 1; "
         "MANWIDTH=80 man -l \"$F\" | grep -q -- '--reserve' && "
         /* `code` is set bold, never shown as backticks; summarize's own codes */
         "! MANWIDTH=80 man -l \"$F\" | grep -q '`' && "
         "MANWIDTH=80 man -l \"$F\" | grep -Eq 'summarize: +0 +every +task'"},
        {"bash", SPACRBENCH_BASH_COMPLETION,
         "bash -n \"$F\" && bash -c '. \"$F\"; complete -p "
         "spacrbench' >/dev/null"},
        {"zsh", SPACRBENCH_ZSH_COMPLETION, "zsh -n \"$F\""},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *built = cli_read_file(files[i].path);
        ck_assert_msg(built != NULL, "the build did not write %s", files[i].path);
        char *printed = generated(files[i].what);
        ck_assert_str_eq(built, printed);
        free(printed);
        free(built);
        const char *tool = i == 0 ? "man" : i == 1 ? "bash" : "zsh";
        char probe[64];
        snprintf(probe, sizeof probe, "command -v %s >/dev/null", tool);
        if (system(probe) != 0) {
            printf("SKIP parsing %s: %s is not installed\n", files[i].path, tool);
            continue;
        }
        setenv("F", files[i].path, 1);
        int rc = system(files[i].check);
        ck_assert_msg(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "%s: '%s' failed", files[i].path,
                      files[i].check);
    }
}
END_TEST

/* Every option with fixed values completes them in bash through the
 * generated function (`spacrbench run --scale <TAB>` offers `auto`), and a
 * value name that spells its values ("fork|spawn|forkserver") has exactly
 * those as the choices. */
START_TEST(fixed_values_complete_in_bash)
{
    const char *bash = access("/bin/bash", X_OK) == 0       ? "/bin/bash"
                       : access("/usr/bin/bash", X_OK) == 0 ? "/usr/bin/bash"
                                                            : NULL;
    if (!bash) {
        printf("SKIP completing fixed values: bash is not installed\n");
        return;
    }
    size_t completed = 0;
    int scale_auto = 0;
    for (size_t i = 0; cli_commands[i]; i++) {
        const cli_command *c = cli_commands[i];
        for (size_t s = 0; s < c->n_sections; s++)
            for (size_t k = 0; k < c->sections[s]->n_options; k++) {
                const cli_option *o = &c->sections[s]->options[k];
                if (o->value && strchr(o->value, '|')) {
                    char spelled[128];
                    snprintf(spelled, sizeof spelled, "%s", o->value);
                    for (char *p = spelled; *p; p++)
                        *p = *p == '|' ? ' ' : *p;
                    ck_assert_msg(o->choices && strcmp(o->choices, spelled) == 0,
                                  "--%s %s completes '%s'", o->name, o->value,
                                  o->choices ? o->choices : "nothing");
                }
                if (!o->choices)
                    continue;
                /* What bash does on TAB after "--NAME ": COMP_WORDS ends in
                 * the empty word being completed. */
                char script[512];
                snprintf(script, sizeof script,
                         ". '%s' && COMP_WORDS=(spacrbench %s --%s '') && "
                         "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) && _spacrbench && "
                         "printf '%%s ' \"${COMPREPLY[@]}\"",
                         SPACRBENCH_BASH_COMPLETION, c->name ? c->name : "", o->name);
                char *const argv[] = {(char *)bash, "--norc", "-c", script, NULL};
                cli_result r;
                cli_run(argv, NULL, &r);
                char want[256];
                snprintf(want, sizeof want, "%s ", o->choices);
                ck_assert_msg(r.exited && r.code == 0 && strcmp(r.raw, want) == 0,
                              "spacrbench %s --%s <TAB>: exit %d, '%s' (wanted '%s'): %s",
                              c->name ? c->name : "", o->name, r.code, r.raw, want, r.err);
                cli_result_free(&r);
                completed++;
                scale_auto |= c->name && strcmp(c->name, "run") == 0 &&
                              strcmp(o->name, "scale") == 0 && strcmp(o->choices, "auto") == 0;
            }
    }
    ck_assert_uint_ge(completed, 3);
    ck_assert_msg(scale_auto, "run --scale does not complete 'auto'");
}
END_TEST

/* The version line, as `spacrbench -V` prints it (owned, static). */
static const char *v_again(void)
{
    static char line[128];
    if (!line[0]) {
        char *v = help_of("--version", NULL);
        snprintf(line, sizeof line, "%s", v);
        free(v);
    }
    return line;
}

/* text with every run of blanks and newlines as one space: the help's
 * sentences, whatever their wrapping. malloc'd. */
static char *one_line(const char *text)
{
    char *out = malloc(strlen(text) + 1), *o = out;
    ck_assert_ptr_nonnull(out);
    for (const char *p = text; *p; p++) {
        int blank = *p == ' ' || *p == '\n';
        if (!blank || (o > out && o[-1] != ' '))
            *o++ = blank ? ' ' : *p;
    }
    *o = '\0';
    return out;
}

/* --plot's help says what it draws now (the decision), --timeout's every
 * form it takes and that a bare number is seconds (SLURM's is minutes). */
START_TEST(plot_and_timeout_help_say_what_they_do)
{
    char *raw = help_of("run", "--help"), *help = one_line(raw);
    ck_assert_msg(strstr(help, "draw the decision to FILE.png or FILE.svg: each item's memory need "
                               "against its file size (or its order), the memory per recommended "
                               "worker as a line, the recommendation as the title, and below it "
                               "the memory over time") != NULL,
                  "%s", help);
    ck_assert_ptr_null(strstr(help, "each item's time and peak"));
    ck_assert_msg(strstr(help, "running longer: 90m, 1h30m, 1:30:00, 2-00:00:00, or a bare number "
                               "of seconds (10, 1.5; SLURM's bare --time is minutes)") != NULL,
                  "%s", help);
    free(help);
    free(raw);
}
END_TEST

START_TEST(help_version_and_exit_codes)
{
    char *v = help_of("-V", NULL), *version = help_of("--version", NULL);
    ck_assert_str_eq(v, version);
    ck_assert_ptr_nonnull(strstr(v, "spacrbench 1."));
    free(v);
    free(version);
    char *run_help = help_of("run", "--help");
    ck_assert_ptr_nonnull(strstr(run_help, "--no-cgroup"));
    ck_assert_ptr_null(strstr(run_help, "--fields")); /* the default mode's, not run's */
    /* The footer names every code run can end with, 126 and 127 included. */
    ck_assert_ptr_nonnull(strstr(run_help, "126 the"));
    ck_assert_ptr_nonnull(strstr(run_help, "127"));
    free(run_help);
    char *summarize = help_of("summarize", "--help");
    ck_assert_ptr_nonnull(strstr(summarize, "--job JOB_SCRIPT"));
    /* summarize's own codes, not run's: 3 means a resubmission is needed. */
    ck_assert_ptr_nonnull(strstr(summarize, "3 some task needs a resubmission"));
    ck_assert_ptr_null(strstr(summarize, "126"));
    free(summarize);
    char *summarize_v = help_of("summarize", "-V");
    ck_assert_str_eq(summarize_v, v_again());
    free(summarize_v);
    char *program = help_of("help", NULL);
    char *dash = help_of("--help", NULL);
    ck_assert_str_eq(program, dash);
    ck_assert_ptr_nonnull(strstr(program, "--interval PERIOD"));
    free(program);
    free(dash);
    static const char *const bad[][4] = {
        {"help", "bogus", NULL, "spacrbench: help: no command 'bogus'"},
        {"help", "run", "extra", "spacrbench: help:"},
        {"--generate", "pdf", NULL, "spacrbench: --generate:"},
        {"run", "--fields", "3", "spacrbench: --fields: unknown option for 'spacrbench run'"},
        {"--interval", "0", NULL, "spacrbench: --interval: expected a period"},
        {"--interval", "11s", NULL, "spacrbench: --interval:"},
        {"--reserve", "4XB", NULL, "spacrbench: --reserve:"},
        {"--vram-reserve", "-1G", NULL, "is negative"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *const argv[] = {SPACRBENCH_CLI, (char *)bad[i][0], (char *)bad[i][1],
                              (char *)bad[i][2], NULL};
        cli_expect_usage_error(argv, bad[i][3], i);
    }
    /* A usage error points at the help of its own command. */
    char *const run_bad[] = {SPACRBENCH_CLI, "run", "--cores", "x", "a", "--", "true", NULL};
    cli_expect_usage_error(run_bad, "(see spacrbench run --help)", 0);
}
END_TEST

START_TEST(one_size_parser)
{
    static const struct {
        const char *text;
        int64_t bytes;
    } good[] = {
        {"4G", INT64_C(4) << 30},
        {"4GiB", INT64_C(4) << 30},
        {"4Gi", INT64_C(4) << 30},
        {"4gib", INT64_C(4) << 30},
        {"4GB", INT64_C(4000000000)},
        {"4gb", INT64_C(4000000000)},
        {"1.5M", 1572864},
        {"1.5MB", 1500000},
        {"512B", 512},
        {"0", 0},
        {"64k", 65536},
        {"2kB", 2000},
        {"1E", INT64_C(1) << 60},
        {"7EiB", INT64_C(7) << 60},
        {"0.5K", 512},
        {"9223372036854775807", INT64_MAX},
        {"1.0000001K", 1025},
        {"4GIB", INT64_C(4) << 30},
        {"4gI", INT64_C(4) << 30},
        {"4Gb", INT64_C(4000000000)},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int64_t v = -7;
        ck_assert_msg(spacrbench_parse_size(good[i].text, &v) == 0, "'%s': %s", good[i].text,
                      spacrbench_last_error_message());
        ck_assert_msg(v == good[i].bytes, "'%s' = %lld, expected %lld", good[i].text, (long long)v,
                      (long long)good[i].bytes);
    }
    static const struct {
        const char *text, *why;
    } bad[] = {
        {"", "is empty"},
        {"-1G", "is negative"},
        {"4X", "unknown unit"},
        {"4 G", "unknown unit"},
        {"4GBB", "unknown unit"},
        {"8E", "too large"},
        {"9223372036854775808", "too large"},
        {"99999999999999999999999", "too large"},
        {"9.3EB", "too large"},
        {"G", "does not start with a number"},
        {"1.", "no digit after"},
        {"0x10", "unknown unit"},
        {"1e3", "unknown unit"},
        {"inf", "does not start with a number"},
        {"0.5", "a fraction of a byte"},
        {"1.5B", "a fraction of a byte"},
        {"4GiBB", "unknown unit"},
        {"4Gx", "unknown unit"},
        {"1111111111111111111111111111111111111111111111111111111111111111111", "too long"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t v = -7;
        ck_assert_msg(spacrbench_parse_size(bad[i].text, &v) == SPACRBENCH_EINVAL, "'%s' accepted",
                      bad[i].text);
        ck_assert_int_eq(v, -7); /* untouched */
        const char *msg = spacrbench_last_error_message();
        ck_assert_msg(strstr(msg, bad[i].why) != NULL, "'%s': '%s' lacks '%s'", bad[i].text, msg,
                      bad[i].why);
        ck_assert_msg(strstr(msg, "size '") != NULL, "'%s' not quoted: %s", bad[i].text, msg);
    }
    int64_t v;
    ck_assert_int_eq(spacrbench_parse_size(NULL, &v), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_parse_size("4G", NULL), SPACRBENCH_EINVAL);

    /* --reserve goes through it: 4GB is decimal, 4G and 4GiB binary. */
    static const struct {
        const char *text;
        int64_t bytes;
    } reserve[] = {
        {"4GB", INT64_C(4000000000)}, {"4G", INT64_C(4) << 30}, {"4GiB", INT64_C(4) << 30}};
    for (size_t i = 0; i < 3; i++) {
        cli_args a;
        cli_args_init(&a, CLI_MODE_DEMO);
        char *argv[] = {"spacrbench",
                        "--reserve",
                        (char *)reserve[i].text,
                        "--vram-reserve",
                        (char *)reserve[i].text,
                        NULL};
        ck_assert_int_eq(cli_args_parse(&a, 5, argv), CLI_EXIT_OK);
        ck_assert_int_eq(a.common.rec.reserve_bytes, reserve[i].bytes);
        ck_assert_int_eq(a.common.rec.vram_reserve_bytes, reserve[i].bytes);
        cli_args_free(&a);
    }
    cli_args a;
    cli_args_init(&a, CLI_MODE_DEMO);
    char *interval[] = {"spacrbench", "--interval", "2.5ms", NULL};
    ck_assert_int_eq(cli_args_parse(&a, 3, interval), CLI_EXIT_OK);
    ck_assert_int_eq(a.interval_us, 2500);
    cli_args_free(&a);
}
END_TEST

/* --interval reaches the library: the measurement says its period, never
 * the 10 ms default. */
START_TEST(interval_reaches_the_sampler)
{
    char *const argv[] = {SPACRBENCH_CLI, "--size", "64x64",  "--fields", "2",
                          "--interval",   "20ms",   "--json", NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    const char *at = strstr(r.raw, "\"sample_interval_us\":");
    ck_assert_msg(at != NULL, "%s", r.raw);
    /* 20000 where a sampler ran; 0 where the peak is the kernel's exact
     * high-water mark and no GPU was sampled (Linux without --gpu). */
    long us = strtol(at + strlen("\"sample_interval_us\":"), NULL, 10);
    ck_assert_msg(us == 20000 || us == 0, "sample_interval_us %ld", us);
    cli_result_free(&r);
}
END_TEST

static Suite *options_suite(void)
{
    Suite *s = suite_create("cli_options");
    TCase *t = tcase_create("tables");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, every_option_is_in_help_man_and_completions);
    tcase_add_test(t, generated_files_are_built_and_parse);
    tcase_add_test(t, fixed_values_complete_in_bash);
    tcase_add_test(t, help_version_and_exit_codes);
    tcase_add_test(t, plot_and_timeout_help_say_what_they_do);
    tcase_add_test(t, one_size_parser);
    tcase_add_test(t, interval_reaches_the_sampler);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(options_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
