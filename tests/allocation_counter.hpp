#pragma once
// Allocation counter for the tests that check a step allocates nothing: allocation_counter.cpp
// replaces the global operator new, which counts calls while g_counting is true. Link that file into
// the test (a replacement must be defined once per program).
#include <atomic>

extern std::atomic<long> g_allocations;
extern std::atomic<bool> g_counting;
