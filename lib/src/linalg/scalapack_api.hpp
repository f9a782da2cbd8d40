#pragma once
// Prototypes of the BLACS, PBLAS and ScaLAPACK routines adasketch calls (Debian's
// libscalapack-openmpi ships no C header). Integers are the default 32-bit Fortran INTEGER.
// pdsyev_ and pdsyevd_ are Fortran: their CHARACTER arguments carry hidden lengths at the end
// (gfortran ABI). The PBLAS (pdsyrk_, pdgemv_, pdgemm_, pdger_), pdgemr2d_ and the Cblacs_* entry points are C.
// Only descinit_, pdsyev_ and pdsyevd_ return an info code; the PBLAS and pdgemr2d_ report bad
// arguments through pxerbla only, so callers pass arguments valid by construction.
#include <mpi.h>

#include <cstddef>

namespace adasketch::detail {
/// ScaLAPACK's first row or column (its indices start at 1): the ia, ja, ix, jx, iy, jy arguments.
inline constexpr int kOne = 1;
}  // namespace adasketch::detail

extern "C" {
int Csys2blacs_handle(MPI_Comm comm);
void Cfree_blacs_system_handle(int handle);
void Cblacs_gridinit(int* context, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int context);
void Cblacs_set(int context, int what, const int* value);

int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc,
               const int* icsrc, const int* context, const int* lld, int* info);

void pdgemr2d_(const int* m, const int* n, const double* a, const int* ia, const int* ja, const int* desca,
               double* b, const int* ib, const int* jb, const int* descb, const int* context);
void pdsyrk_(const char* uplo, const char* trans, const int* n, const int* k, const double* alpha,
             const double* a, const int* ia, const int* ja, const int* desca, const double* beta, double* c,
             const int* ic, const int* jc, const int* descc);
void pdgemv_(const char* trans, const int* m, const int* n, const double* alpha, const double* a, const int* ia,
             const int* ja, const int* desca, const double* x, const int* ix, const int* jx, const int* descx,
             const int* incx, const double* beta, double* y, const int* iy, const int* jy, const int* descy,
             const int* incy);
void pdgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const double* alpha,
             const double* a, const int* ia, const int* ja, const int* desca, const double* b, const int* ib,
             const int* jb, const int* descb, const double* beta, double* c, const int* ic, const int* jc,
             const int* descc);
void pdger_(const int* m, const int* n, const double* alpha, const double* x, const int* ix, const int* jx,
            const int* descx, const int* incx, const double* y, const int* iy, const int* jy, const int* descy,
            const int* incy, double* a, const int* ia, const int* ja, const int* desca);
void pdsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* ia, const int* ja,
              const int* desca, double* w, double* z, const int* iz, const int* jz, const int* descz, double* work,
              const int* lwork, int* iwork, const int* liwork, int* info, std::size_t jobz_len, std::size_t uplo_len);
void pdsyev_(const char* jobz, const char* uplo, const int* n, double* a, const int* ia, const int* ja,
             const int* desca, double* w, double* z, const int* iz, const int* jz, const int* descz,
             double* work, const int* lwork, int* info, std::size_t jobz_len, std::size_t uplo_len);
}
