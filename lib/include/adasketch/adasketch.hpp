#pragma once
/// @file
/// Everything of the core library in one include, with the exact learners when the build has ScaLAPACK
/// (ADASKETCH_WITH_EXACT_LEARNERS) and the HDF5 reader
/// when it has parallel HDF5 (ADASKETCH_WITH_HDF5). The exact covariance is included on its own:
/// adasketch/evaluation/exact_covariance.hpp, target adasketch::evaluation.

/// @namespace adasketch
/// Everything of the C++ API: communicators and partitions (comm/), data sources (data/), sketches
/// (sketch/), learners (learners/), training and evaluation (training/), model and checkpoint files
/// (io/), errors (error.hpp). The library never calls MPI_Init and never uses MPI_COMM_WORLD: every
/// distributed object works on the caller's communicator (Communicator). Calls marked collective
/// must be made by every rank of that communicator, in the same order; local calls communicate
/// nothing. Errors are typed exceptions (Error and its subclasses).
#include "adasketch/comm/communicator.hpp"
#include "adasketch/comm/partition.hpp"
#include "adasketch/data/bias_source.hpp"
#include "adasketch/data/compact_features.hpp"
#include "adasketch/data/dense_binary.hpp"
#include "adasketch/data/example.hpp"
#include "adasketch/data/example_source.hpp"
#include "adasketch/data/hdf5_names.hpp"
#include "adasketch/data/libsvm_reader.hpp"
#include "adasketch/data/memory_source.hpp"
#include "adasketch/data/synthetic.hpp"
#include "adasketch/data/synthetic_spec.hpp"
#include "adasketch/error.hpp"
#include "adasketch/io/checkpoint.hpp"
#include "adasketch/io/linear_model.hpp"
#include "adasketch/io/state_fields.hpp"
#include "adasketch/learners/auto_tune/auto_tuned_learner.hpp"
#include "adasketch/learners/comp_adagrad/comp_adagrad.hpp"
#include "adasketch/learners/defaults.hpp"
#include "adasketch/learners/diagonal/diagonal_adagrad.hpp"
#include "adasketch/learners/learner.hpp"
#include "adasketch/learners/loss.hpp"
#include "adasketch/learners/sketched_adagrad/sketched_adagrad.hpp"
#include "adasketch/learners/sketched_newton/sketched_newton.hpp"
#include "adasketch/linalg/page_buffer.hpp"
#include "adasketch/linalg/symmetric_eigen.hpp"
#include "adasketch/number_text.hpp"
#include "adasketch/random/philox.hpp"
#include "adasketch/sketch/frequent_directions.hpp"
#include "adasketch/sketch/local_row.hpp"
#include "adasketch/sketch/make_sketch.hpp"
#include "adasketch/sketch/oja_sketch.hpp"
#include "adasketch/sketch/random_projection.hpp"
#include "adasketch/sketch/sketch.hpp"
#include "adasketch/training/evaluate.hpp"
#include "adasketch/training/label_map.hpp"
#include "adasketch/training/online_training.hpp"
#include "adasketch/training/training_state.hpp"
#include "adasketch/types.hpp"
#include "adasketch/version.hpp"
#if ADASKETCH_WITH_EXACT_LEARNERS
#include "adasketch/learners/exact/full_adagrad.hpp"
#include "adasketch/learners/exact/full_newton.hpp"
#endif
#if ADASKETCH_WITH_HDF5
#include "adasketch/data/hdf5_reader.hpp"
#endif
