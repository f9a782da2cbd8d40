# Finds Debian's OpenBLAS (BLAS + LAPACK), LAPACKE and the Open MPI build of ScaLAPACK,
# and defines the imported targets adasketch_deps::blas, adasketch_deps::lapacke, adasketch_deps::scalapack.
# (Debian's own scalapack-config.cmake points at /usr/lib instead of the multiarch directory, so it is
# not used.)
include(FindPackageHandleStandardArgs)
find_path(ADASKETCH_CBLAS_INCLUDE_DIR cblas.h
  PATHS /usr/include/x86_64-linux-gnu/openblas-pthread /usr/include/openblas /usr/include)
find_library(ADASKETCH_OPENBLAS_LIBRARY NAMES openblas)
find_path(ADASKETCH_LAPACKE_INCLUDE_DIR lapacke.h)
find_library(ADASKETCH_LAPACKE_LIBRARY NAMES lapacke)
find_library(ADASKETCH_SCALAPACK_LIBRARY NAMES scalapack-openmpi scalapack)
find_package_handle_standard_args(AdasketchLinalg REQUIRED_VARS
  ADASKETCH_CBLAS_INCLUDE_DIR ADASKETCH_OPENBLAS_LIBRARY ADASKETCH_LAPACKE_INCLUDE_DIR
  ADASKETCH_LAPACKE_LIBRARY ADASKETCH_SCALAPACK_LIBRARY)
if(AdasketchLinalg_FOUND AND NOT TARGET adasketch_deps::blas)
  add_library(adasketch_deps::blas UNKNOWN IMPORTED)
  set_target_properties(adasketch_deps::blas PROPERTIES IMPORTED_LOCATION "${ADASKETCH_OPENBLAS_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${ADASKETCH_CBLAS_INCLUDE_DIR}")
  add_library(adasketch_deps::lapacke UNKNOWN IMPORTED)
  set_target_properties(adasketch_deps::lapacke PROPERTIES IMPORTED_LOCATION "${ADASKETCH_LAPACKE_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${ADASKETCH_LAPACKE_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES adasketch_deps::blas)
  add_library(adasketch_deps::scalapack UNKNOWN IMPORTED)
  set_target_properties(adasketch_deps::scalapack PROPERTIES IMPORTED_LOCATION "${ADASKETCH_SCALAPACK_LIBRARY}"
    INTERFACE_LINK_LIBRARIES adasketch_deps::lapacke)
endif()
