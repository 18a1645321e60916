// capped-run: runs a command under an address-space limit and reports how it ended and its peak memory,
// for the tests that feed bombs to the thumbcache executable ("crashes and bombs are tested in child
// processes with a memory cap").
//
//   capped-run REPORT_FILE AS_LIMIT_BYTES COMMAND [ARG...]
//
// AS_LIMIT_BYTES 0 means no limit (ThreadSanitizer cannot start under one). The command's own output is
// left as it is; REPORT_FILE receives one line: "exit N maxrss_kib K" or "signal N maxrss_kib K".
// The runner exits 0 when it could run the command, 125 otherwise.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: capped-run REPORT_FILE AS_LIMIT_BYTES COMMAND [ARG...]\n");
        return 125;
    }
    char *end = NULL;
    unsigned long long limit = strtoull(argv[2], &end, 10);
    if (!end || *end != 0) {
        fprintf(stderr, "capped-run: not a byte count: %s\n", argv[2]);
        return 125;
    }
    pid_t child = fork();
    if (child < 0) {
        perror("capped-run: fork");
        return 125;
    }
    if (child == 0) {
        if (limit > 0) {
            struct rlimit cap = {(rlim_t)limit, (rlim_t)limit};
            if (setrlimit(RLIMIT_AS, &cap) != 0) _exit(125);
        }
        execv(argv[3], argv + 3);
        fprintf(stderr, "capped-run: cannot run %s: %s\n", argv[3], strerror(errno));
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
    FILE *report = fopen(argv[1], "w");
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
