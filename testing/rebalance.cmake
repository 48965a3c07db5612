# Per-time-step re-balancing (issue 6): the core on a moving hot spot at
# N = 2..5, and mxn stats --steps.
mxn_add_gtest_exodus(test_rebalance unit/test_rebalance.cpp)
mxn_add_mpi_runs(test_rebalance 2 3 4 5)

# mxn stats --steps all --json on the hot spot: the steps rows carry exactly
# the keys step, imbalance_before, imbalance_after, migrated, bytes_read,
# every step is within the tolerance after re-balancing, and --rebalance
# none reports the imbalance the re-balancing removed.
add_test(NAME cli_stats_steps
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/stats_steps.sh $<TARGET_FILE:mxn_cli>
          $<TARGET_FILE:mxn_gen> ${MXN_MPIEXEC} ${MXN_TEST_TMP}/cli_stats_steps)
set_tests_properties(cli_stats_steps PROPERTIES TIMEOUT 300
  ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")

# The plugin animating through every step with RebalanceEachTimeStep on
# (rebalance_steps.py): totals constant, field data per step. N = 2, 3.
if(MXN_BUILD_PLUGIN AND PVBATCH)
  set(MXN_REBAL_PV_DIR ${MXN_TEST_TMP}/pvbatch_rebalance)
  add_test(NAME pvbatch_rebalance_gen
    COMMAND bash -c "mkdir -p '${MXN_REBAL_PV_DIR}' && \
'$<TARGET_FILE:mxn_gen>' --type hex --dims 24 24 2 --steps 20 --hot-spot '${MXN_REBAL_PV_DIR}/hs.e' && \
'$<TARGET_FILE:mxn_cli>' split '${MXN_REBAL_PV_DIR}/hs.e' '${MXN_REBAL_PV_DIR}/hs' -n 3 --quiet")
  set_tests_properties(pvbatch_rebalance_gen PROPERTIES TIMEOUT 120
    FIXTURES_SETUP mxn_rebalance_pv)
  # And LoadBalanceCost = MeasuredTime, no field: the time the (modelled)
  # downstream pipeline took per rank weighs the next re-balance
  # (rebalance_measured.py): reported as the cost source, totals constant,
  # and the modelled work ends up balanced. N = 2, 3.
  foreach(script rebalance_steps rebalance_measured)
    foreach(np 2 3)
      add_test(NAME pvbatch_${script}_np${np}
        COMMAND ${MXN_MPIEXEC} --oversubscribe -n ${np} ${PVBATCH} --symmetric
                ${CMAKE_CURRENT_SOURCE_DIR}/pvbatch/${script}.py
                $<TARGET_FILE:MxNReader> ${MXN_REBAL_PV_DIR}/hs.3.0 1.1)
      set_tests_properties(pvbatch_${script}_np${np} PROPERTIES TIMEOUT 300
        ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
        FIXTURES_REQUIRED mxn_rebalance_pv)
    endforeach()
  endforeach()
endif()
