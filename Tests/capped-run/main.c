// capped-run: runs a command under an address-space limit and reports how it ended and its peak memory,
// for the tests that run the thumbcache executable ("crashes and bombs are tested in child processes with a
// memory cap").
//
//   capped-run [--file-size BYTES] REPORT_FILE AS_LIMIT_BYTES COMMAND [ARG...]
//
// AS_LIMIT_BYTES 0 means no limit (ThreadSanitizer cannot start under one). The command's own output is
// left as it is; REPORT_FILE receives one line: "exit N maxrss_kib K" or "signal N maxrss_kib K".
// The runner exits 0 when it could run the command, 125 otherwise.
//
// REPORT_FILE "-": no report; the command replaces the runner (same process, so the caller sees its exit
// status or signal itself and can read its /proc entries).
// --file-size BYTES: no file may grow past BYTES (RLIMIT_FSIZE), and SIGXFSZ is ignored, so such a write
// fails with EFBIG, as a write to a full disk fails with ENOSPC, instead of killing the command.
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int parse_bytes(const char *text, unsigned long long *value) {
    char *end = NULL;
    errno = 0;
    *value = strtoull(text, &end, 10);
    if (errno != 0 || !end || end == text || *end != 0) {
        fprintf(stderr, "capped-run: not a byte count: %s\n", text);
        return -1;
    }
    return 0;
}

// In the process that runs the command: 0, or -1 when a limit cannot be set.
static int apply_limits(unsigned long long address_space, unsigned long long file_size) {
    if (address_space > 0) {
        struct rlimit cap = {(rlim_t)address_space, (rlim_t)address_space};
        if (setrlimit(RLIMIT_AS, &cap) != 0) return -1;
    }
    if (file_size > 0) {
        struct rlimit cap = {(rlim_t)file_size, (rlim_t)file_size};
        if (setrlimit(RLIMIT_FSIZE, &cap) != 0) return -1;
        signal(SIGXFSZ, SIG_IGN);  // kept across exec
    }
    return 0;
}

int main(int argc, char **argv) {
    unsigned long long file_size = 0;
    int first = 1;
    if (argc > 2 && strcmp(argv[1], "--file-size") == 0) {
        if (parse_bytes(argv[2], &file_size) != 0) return 125;
        first = 3;
    }
    if (argc - first < 3) {
        fprintf(stderr, "usage: capped-run [--file-size BYTES] REPORT_FILE AS_LIMIT_BYTES COMMAND [ARG...]\n");
        return 125;
    }
    const char *report_path = argv[first];
    unsigned long long limit = 0;
    if (parse_bytes(argv[first + 1], &limit) != 0) return 125;
    char **command = argv + first + 2;

    if (strcmp(report_path, "-") == 0) {
        if (apply_limits(limit, file_size) != 0) {
            perror("capped-run: setrlimit");
            return 125;
        }
        execv(command[0], command);
        fprintf(stderr, "capped-run: cannot run %s: %s\n", command[0], strerror(errno));
        return 125;
    }
    pid_t child = fork();
    if (child < 0) {
        perror("capped-run: fork");
        return 125;
    }
    if (child == 0) {
        if (apply_limits(limit, file_size) != 0) _exit(125);
        execv(command[0], command);
        fprintf(stderr, "capped-run: cannot run %s: %s\n", command[0], strerror(errno));
        _exit(125);
    }
    int status = 0;
    struct rusage usage;
    memset(&usage, 0, sizeof usage);
    while (wait4(child, &status, 0, &usage) < 0) {
        if (errno != EINTR) {
            perror("capped-run: wait4");
            return 125;
        }
    }
    FILE *report = fopen(report_path, "w");
    if (!report) {
        perror("capped-run: report");
        return 125;
    }
    if (WIFSIGNALED(status))
        fprintf(report, "signal %d maxrss_kib %ld\n", WTERMSIG(status), usage.ru_maxrss);
    else
        fprintf(report, "exit %d maxrss_kib %ld\n", WEXITSTATUS(status), usage.ru_maxrss);
    fclose(report);
    return 0;
}
