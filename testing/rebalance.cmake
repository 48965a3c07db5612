# Per-time-step re-balancing (issue 6): the core on a moving hot spot at
# N = 2..5, and mxn stats --steps.
mxn_add_gtest_exodus(test_rebalance unit/test_rebalance.cpp)
mxn_add_mpi_runs(test_rebalance 2 3 4 5)
