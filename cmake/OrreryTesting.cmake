# Helpers for tests. MPI end-to-end tests run as root on a 2-core machine, so
# every MPI test gets the environment that allows that (oversubscription, root,
# yielding when idle so that 4 ranks on 2 cores still make progress).
set(ORRERY_MPI_TEST_ENV
  "OMPI_ALLOW_RUN_AS_ROOT=1"
  "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
  "OMPI_MCA_rmaps_base_oversubscribe=1"
  "OMPI_MCA_mpi_yield_when_idle=1"
  "OMPI_MCA_btl_vader_single_copy_mechanism=none"
  "PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe")

# orrery_add_mpi_test(NAME name NP n COMMAND exe args... [TIMEOUT s] [LABELS l...])
# Runs `mpirun -np n exe args...` with the test environment.
function(orrery_add_mpi_test)
  cmake_parse_arguments(T "" "NAME;NP;TIMEOUT" "COMMAND;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  add_test(NAME ${T_NAME}
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${T_NP} ${T_COMMAND})
  set_tests_properties(${T_NAME} PROPERTIES
    ENVIRONMENT "${ORRERY_MPI_TEST_ENV}" TIMEOUT ${T_TIMEOUT} LABELS "mpi;${T_LABELS}")
endfunction()

# orrery_add_script_test(NAME name COMMAND cmd args... [TIMEOUT s] [LABELS l...])
# A test driven by a script; it gets the MPI environment and ORRERY_BUILD_DIR.
function(orrery_add_script_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "COMMAND;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  if(ORRERY_SANITIZE)
    math(EXPR T_TIMEOUT "${T_TIMEOUT} * 4")  # ASan + UBSan run the tools 2-4x slower
  endif()
  add_test(NAME ${T_NAME} COMMAND ${T_COMMAND})
  set_tests_properties(${T_NAME} PROPERTIES
    ENVIRONMENT "${ORRERY_MPI_TEST_ENV};ORRERY_BUILD_DIR=${PROJECT_BINARY_DIR};ORRERY_SOURCE_DIR=${PROJECT_SOURCE_DIR}"
    TIMEOUT ${T_TIMEOUT} LABELS "${T_LABELS}")
endfunction()
