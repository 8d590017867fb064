/*
 * gen/ptx_lines.c - one PTX instruction per line. cpp writes a macro's whole expansion on one line (a
 * line of 18,854 characters in grouped_gemm.ptx), so the PTX that ptxas assembles, the text a tuner
 * reads in build/ptx/, could not be read. This filter breaks every line after each ';' that is outside a
 * comment or a string and not followed by the end of the line or a comment, and goes on at the line's own
 * indentation. Nothing else changes: the instructions, their order and the comments are the same, so the
 * assembled code is too.
 *
 * Usage: ptx_lines < preprocessed.ptx > readable.ptx (the Makefile runs it between cpp and ptxas).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where a scan of the text stands; a block comment may go on over several lines. */
typedef enum { CODE, LINE_COMMENT, BLOCK_COMMENT, STRING } scan_state;

/* Writes line (without its newline), broken after each ';' of the code; *state carries a block comment over
 * to the next line. */
static void split_line(const char *line, scan_state *state, FILE *out) {
  size_t indent = strspn(line, " \t");
  for (const char *p = line; *p != '\0'; p++) {
    fputc(*p, out);
    switch (*state) {
      case LINE_COMMENT:
        break;
      case BLOCK_COMMENT:
        if (p[0] == '*' && p[1] == '/') {
          fputc(*++p, out);
          *state = CODE;
        }
        break;
      case STRING:
        if (p[0] == '\\' && p[1] != '\0') fputc(*++p, out);
        else if (p[0] == '"') *state = CODE;
        break;
      case CODE:
        if (p[0] == '/' && p[1] == '/') *state = LINE_COMMENT;
        else if (p[0] == '/' && p[1] == '*') {
          fputc(*++p, out);
          *state = BLOCK_COMMENT;
        } else if (p[0] == '"') {
          *state = STRING;
        } else if (p[0] == ';') {
          const char *next = p + 1 + strspn(p + 1, " \t");
          if (*next == '\0' || (next[0] == '/' && (next[1] == '/' || next[1] == '*'))) break;
          fprintf(out, "\n%.*s", (int)indent, line);
          p = next - 1;
        }
        break;
    }
  }
  fputc('\n', out);
  if (*state == LINE_COMMENT || *state == STRING) *state = CODE;
}

int main(void) {
  char *line = NULL;
  size_t capacity = 0;
  ssize_t length;
  scan_state state = CODE;
  while ((length = getline(&line, &capacity, stdin)) >= 0) {
    if (length > 0 && line[length - 1] == '\n') line[length - 1] = '\0';
    split_line(line, &state, stdout);
  }
  free(line);
  return ferror(stdin) || fflush(stdout) != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
