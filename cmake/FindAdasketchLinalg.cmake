# Finds Debian's OpenBLAS (BLAS + LAPACK) and LAPACKE, and with the component ScaLAPACK the Open MPI
# build of ScaLAPACK; defines the imported targets adasketch_deps::blas, adasketch_deps::lapacke and
# (with ScaLAPACK) adasketch_deps::scalapack.
# (Debian's own scalapack-config.cmake points at /usr/lib instead of the multiarch directory, so it is
# not used.)
include(FindPackageHandleStandardArgs)
find_path(ADASKETCH_CBLAS_INCLUDE_DIR cblas.h
  PATHS /usr/include/x86_64-linux-gnu/openblas-pthread /usr/include/openblas /usr/include)
find_library(ADASKETCH_OPENBLAS_LIBRARY NAMES openblas)
find_path(ADASKETCH_LAPACKE_INCLUDE_DIR lapacke.h)
find_library(ADASKETCH_LAPACKE_LIBRARY NAMES lapacke)
set(_adasketch_linalg_required ADASKETCH_CBLAS_INCLUDE_DIR ADASKETCH_OPENBLAS_LIBRARY
    ADASKETCH_LAPACKE_INCLUDE_DIR ADASKETCH_LAPACKE_LIBRARY)
if("ScaLAPACK" IN_LIST AdasketchLinalg_FIND_COMPONENTS)
  find_library(ADASKETCH_SCALAPACK_LIBRARY NAMES scalapack-openmpi scalapack)
  if(ADASKETCH_SCALAPACK_LIBRARY)
    set(AdasketchLinalg_ScaLAPACK_FOUND TRUE)
  endif()
endif()
find_package_handle_standard_args(AdasketchLinalg REQUIRED_VARS ${_adasketch_linalg_required} HANDLE_COMPONENTS)
if(AdasketchLinalg_FOUND AND NOT TARGET adasketch_deps::blas)
  add_library(adasketch_deps::blas UNKNOWN IMPORTED)
  set_target_properties(adasketch_deps::blas PROPERTIES IMPORTED_LOCATION "${ADASKETCH_OPENBLAS_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${ADASKETCH_CBLAS_INCLUDE_DIR}")
  add_library(adasketch_deps::lapacke UNKNOWN IMPORTED)
  set_target_properties(adasketch_deps::lapacke PROPERTIES IMPORTED_LOCATION "${ADASKETCH_LAPACKE_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${ADASKETCH_LAPACKE_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES adasketch_deps::blas)
endif()
if(AdasketchLinalg_ScaLAPACK_FOUND AND NOT TARGET adasketch_deps::scalapack)
  add_library(adasketch_deps::scalapack UNKNOWN IMPORTED)
  set_target_properties(adasketch_deps::scalapack PROPERTIES IMPORTED_LOCATION "${ADASKETCH_SCALAPACK_LIBRARY}"
    INTERFACE_LINK_LIBRARIES adasketch_deps::lapacke)
endif()
