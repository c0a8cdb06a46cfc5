/* Threads for an OpenMP loop of the C extensions (solvers/_smo_core.pyx,
   solvers/_linear_core.pyx): the solve's count (numba's per-thread setting,
   passed in), at least one, and no more than the loop's tasks or 256 (a huge
   count overflowed OpenMP's stack). */
#ifndef SVMCOMPARE_PARALLEL_H
#define SVMCOMPARE_PARALLEL_H
#include <stdint.h>
static inline int svmc_team(int n_threads, int64_t tasks) {
    if (tasks > 256)
        tasks = 256;
    if (n_threads > tasks)
        n_threads = (int)tasks;
    return n_threads > 1 ? n_threads : 1;
}
#endif
