# BLAS and LAPACK through CMake's own FindBLAS and FindLAPACK: BLA_VENDOR picks the implementation
# (OpenBLAS, FLAME for BLIS, Intel10_64lp for MKL, ...; see CMake's FindBLAS). Without BLA_VENDOR,
# OpenBLAS when it is found (Debian's, which jobs/setup.sh installs), else whatever FindBLAS finds.
# The library calls the C interfaces, so it also needs cblas.h and lapacke.h, and liblapacke unless the
# LAPACK libraries define LAPACKE themselves. With the component ScaLAPACK: the Open MPI build of
# ScaLAPACK. Defines the interface targets adasketch_deps::blas, adasketch_deps::lapacke and (with
# ScaLAPACK) adasketch_deps::scalapack.
# (Debian's own scalapack-config.cmake points at /usr/lib instead of the multiarch directory, so it is
# not used.)
include(FindPackageHandleStandardArgs)
include(CMakePushCheckState)
include(CheckCXXSourceCompiles)

if(NOT DEFINED BLA_VENDOR AND NOT DEFINED ENV{BLA_VENDOR})
  set(BLA_VENDOR OpenBLAS)
  find_package(BLAS QUIET)
  if(NOT BLAS_FOUND)
    unset(BLA_VENDOR)
  endif()
endif()
find_package(BLAS QUIET)
find_package(LAPACK QUIET)

find_path(ADASKETCH_CBLAS_INCLUDE_DIR cblas.h
  PATHS /usr/include/x86_64-linux-gnu/openblas-pthread /usr/include/openblas /usr/include
  DOC "directory of cblas.h")
find_path(ADASKETCH_LAPACKE_INCLUDE_DIR lapacke.h DOC "directory of lapacke.h")
# LAPACKE: in the LAPACK libraries (OpenBLAS, MKL) or a library of its own (Debian's liblapacke).
set(ADASKETCH_LAPACKE_LIBRARIES "")
if(LAPACK_FOUND AND ADASKETCH_LAPACKE_INCLUDE_DIR)
  cmake_push_check_state(RESET)
  set(CMAKE_REQUIRED_QUIET ON)
  set(CMAKE_REQUIRED_LIBRARIES ${LAPACK_LIBRARIES} ${BLAS_LIBRARIES})
  check_cxx_source_compiles("extern \"C\" int LAPACKE_dsyevd_work(); int main() { return LAPACKE_dsyevd_work(); }"
                            ADASKETCH_LAPACK_HAS_LAPACKE)
  cmake_pop_check_state()
  if(NOT ADASKETCH_LAPACK_HAS_LAPACKE)
    find_library(ADASKETCH_LAPACKE_LIBRARY NAMES lapacke DOC "the LAPACKE library")
    set(ADASKETCH_LAPACKE_LIBRARIES ${ADASKETCH_LAPACKE_LIBRARY})
  endif()
endif()

set(_adasketch_linalg_required BLAS_FOUND LAPACK_FOUND ADASKETCH_CBLAS_INCLUDE_DIR ADASKETCH_LAPACKE_INCLUDE_DIR)
if(NOT ADASKETCH_LAPACK_HAS_LAPACKE)
  list(APPEND _adasketch_linalg_required ADASKETCH_LAPACKE_LIBRARY)
endif()
if("ScaLAPACK" IN_LIST AdasketchLinalg_FIND_COMPONENTS)
  find_library(ADASKETCH_SCALAPACK_LIBRARY NAMES scalapack-openmpi scalapack DOC "the ScaLAPACK library")
  if(ADASKETCH_SCALAPACK_LIBRARY)
    set(AdasketchLinalg_ScaLAPACK_FOUND TRUE)
  endif()
endif()
find_package_handle_standard_args(AdasketchLinalg REQUIRED_VARS ${_adasketch_linalg_required} HANDLE_COMPONENTS)

if(AdasketchLinalg_FOUND AND NOT TARGET adasketch_deps::blas)
  add_library(adasketch_deps::blas INTERFACE IMPORTED)
  set_target_properties(adasketch_deps::blas PROPERTIES INTERFACE_LINK_LIBRARIES "${BLAS_LIBRARIES}"
    INTERFACE_INCLUDE_DIRECTORIES "${ADASKETCH_CBLAS_INCLUDE_DIR}")
  add_library(adasketch_deps::lapacke INTERFACE IMPORTED)
  set_target_properties(adasketch_deps::lapacke PROPERTIES
    INTERFACE_LINK_LIBRARIES "${ADASKETCH_LAPACKE_LIBRARIES};${LAPACK_LIBRARIES};adasketch_deps::blas"
    INTERFACE_INCLUDE_DIRECTORIES "${ADASKETCH_LAPACKE_INCLUDE_DIR}")
endif()
if(AdasketchLinalg_ScaLAPACK_FOUND AND NOT TARGET adasketch_deps::scalapack)
  add_library(adasketch_deps::scalapack INTERFACE IMPORTED)
  set_target_properties(adasketch_deps::scalapack PROPERTIES
    INTERFACE_LINK_LIBRARIES "${ADASKETCH_SCALAPACK_LIBRARY};adasketch_deps::lapacke")
endif()
