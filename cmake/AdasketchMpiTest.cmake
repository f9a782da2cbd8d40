# adasketch_add_mpi_test(<target> SOURCES <files...> [RANKS 1 2 3] [TIMEOUT seconds])
# Builds a GoogleTest binary linked with adasketch and the rank-0-printing test main, and registers it
# with CTest once per rank count as <target>.np<N>, run under mpiexec (oversubscribed, root allowed,
# one OpenBLAS thread per rank). These are the unit tests: label `unit`, and the target
# adasketch_unit_tests builds them all (the sanitizer round builds and runs only these).
set(ADASKETCH_TEST_RANKS 1 2 3 CACHE STRING "MPI rank counts every MPI test runs at")
if(NOT TARGET adasketch_unit_tests)
  add_custom_target(adasketch_unit_tests)
endif()
function(adasketch_add_mpi_test target)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;RANKS" ${ARGN})
  if(NOT ARG_RANKS)
    set(ARG_RANKS ${ADASKETCH_TEST_RANKS})
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  add_executable(${target} ${ARG_SOURCES})
  add_dependencies(adasketch_unit_tests ${target})
  target_link_libraries(${target} PRIVATE adasketch adasketch_test_main)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
                         $<$<BOOL:${ADASKETCH_WARNINGS_AS_ERRORS}>:-Werror>)
  foreach(np IN LISTS ARG_RANKS)
    add_test(NAME ${target}.np${np}
      COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} --oversubscribe --allow-run-as-root
              ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${target}> ${MPIEXEC_POSTFLAGS})
    set_tests_properties(${target}.np${np} PROPERTIES TIMEOUT ${ARG_TIMEOUT} PROCESSORS ${np} LABELS unit
      ENVIRONMENT "OPENBLAS_NUM_THREADS=1;OMPI_MCA_rmaps_base_oversubscribe=1")
  endforeach()
endfunction()
