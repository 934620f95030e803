/* Which notes say how a figure was obtained (the report's --verbose
 * part) rather than something a user acts on. Not installed. */
#ifndef SPACRBENCH_OUTPUT_NOTE_DETAIL_H
#define SPACRBENCH_OUTPUT_NOTE_DETAIL_H

/* 1: note is one of the library's own notes on method (the kernel mark,
 * the cgroup, the sampling, the workload), shown only in the verbose
 * report; the JSON and the Markdown keep every note. 0: anything else
 * (a stop, an OOM kill, a spread, a peak that is not exact, a caller's
 * own note), shown always. Read from the words, so a measurement rebuilt
 * from JSON or a Python Measurement reads the same. */
int sb_note_is_detail(const char *note);

#endif
