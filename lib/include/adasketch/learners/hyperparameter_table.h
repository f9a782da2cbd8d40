/** @file
 * The learners' hyperparameters, each declared once (issue 24; docs/design.md §2, "One table"), for C
 * and C++: adasketch.h builds the C adasketch_spec from it, hyperparameters.hpp the C++ LearnerSpec.
 * Adding a hyperparameter takes its row here, the algorithm that reads it and its test (docs/design.md
 * §2, "One table"): the options structs' fields, LearnerSpec, the interfaces, the checkpoint and the
 * reports follow from the row. */
#ifndef ADASKETCH_LEARNERS_HYPERPARAMETER_TABLE_H
#define ADASKETCH_LEARNERS_HYPERPARAMETER_TABLE_H

#include <stdint.h>

/** The hyperparameter table (an X-macro): ADASKETCH_HYPERPARAMETERS(X) calls X once per
 * hyperparameter, in the order reports and messages list them, with the columns
 * - kind: number, choice (an enum named by to_string/from_string), flag (a switch) or list
 *   (comma-separated numbers)
 * - type: its C++ type (a number's is also its C type)
 * - member: its LearnerSpec and adasketch_spec field, the Python keyword, its name in a checkpoint's
 *   spec block and in the C and Fortran settings text
 * - option: `adasketch train --OPTION` and its config-file key
 * - value: its default (of LearnerSpec, the options structs and every interface)
 * - role: learner (part of what a checkpoint must match) or layout (how a run is laid out, free to
 *   change on resume)
 * - readers: the options structs that have it as a field, one place each: D DiagonalAdaGradOptions,
 *   A SketchedAdaGradOptions, N SketchedNewtonOptions, C CompAdaGradOptions, F FullAdaGradOptions,
 *   O FullNewtonOptions, and _ where that family does not read it (hyperparameters.hpp,
 *   ADASKETCH_OPTIONS_FIELDS); _ in every column for a row read for every learner outside the
 *   families: divergence (make_learner sets it in the base Learner, spec() reports it) and the rows
 *   of --auto (make_learner's AutoTunedLearner)
 * - value_name: the placeholder of --help
 * - range: the values every learner that reads it accepts (HyperparameterRange: any, non_negative,
 *   positive, normal_positive, unit_interval; a list's each value), checked by the families, which may
 *   ask for more (e.g. eta > 0 for the AdaGrad learners)
 * - symbol: its symbol in the papers
 * - help: one line of what it does, and which learners read it
 *
 * X takes the eleven columns as parameters (or the first few and `...`); its expansion for one row is
 * the caller's:
 * a field (LearnerSpec, adasketch_spec), a call (for_each_hyperparameter). */
#define ADASKETCH_HYPERPARAMETERS(X)                                                                                    \
  X(number, int64_t, ell, "ell", 10, learner, (_, A, N, C, _, _),                                                       \
    "N", non_negative, "ℓ (τ in the AdaGrad papers, m in SON)",                                                         \
    "sketch size ℓ (sketched learners; comp-adagrad: the SRHT's k; 0: no sketch, for the SON variants plain ONS "       \
    "with α and for comp-adagrad the diagonal block alone)")                                                            \
  X(number, double, eta, "eta", 0.1, learner, (D, A, N, C, F, O), "ETA", non_negative, "η",                             \
    "AdaGrad step size η; SON: scale of the η_t schedule")                                                              \
  X(number, double, delta, "delta", 1.0, learner, (D, A, _, C, F, _), "DELTA", normal_positive, "δ (σ in the ADA-GP/DP paper)", \
    "AdaGrad δ (σ in the ADA-GP/DP paper)")                                                                             \
  X(number, double, alpha0, "alpha0", 10.0, learner, (_, _, N, _, _, O),                                                 \
    "A", non_negative, "α, α₀",                                                                                         \
    "SON α; RFD-SON α₀")                                                                                                \
  X(number, double, C, "C", 1.0, learner, (_, _, N, _, _, O),                                                           \
    "C", positive, "C", "SON projection radius: K_t = {w : |wᵀx_t| ≤ C}")                                               \
  X(number, double, sigma, "sigma", 0.0, learner, (_, _, N, _, _, O),                                                   \
    "SIGMA", non_negative, "σ", "SON curvature σ_t (constant)")                                                         \
  X(choice, EtaSchedule, eta_schedule, "eta-schedule", EtaSchedule::constant, learner, (_, _, N, _, _, O), "S",         \
    any, "η_t", "SON η_t: constant (η), inv-t (η/t) or inv-sqrt-t (η/√t)")                                              \
  X(number, uint64_t, seed, "seed", 1, learner, (_, A, N, C, _, _), "S", any, "", "random seed of the rp sketch")       \
  X(choice, FormChoice, form, "form", FormChoice::automatic, learner, (_, A, N, _, _, _),                               \
    "F", any, "",                                                                                                       \
    "sketch form: auto (sparse for LIBSVM data), dense, or sparse (time per sparse example independent of d)")          \
  X(number, double, lambda1, "lambda1", 0.0, learner, (D, A, _, C, _, _), "L1", non_negative, "λ₁",                     \
    "ℓ1 weight λ₁ ≥ 0 of the composite φ(w) = λ₁‖w‖₁ + λ₂/2‖w‖² (AdaGrad family, comp-adagrad)")                        \
  X(number, double, lambda2, "lambda2", 0.0, learner, (D, A, _, C, _, _),                                               \
    "L2", non_negative, "λ₂", "ℓ2 weight λ₂ ≥ 0 of the composite φ")                                                    \
  X(number, double, tau, "tau", 1.0, learner, (_, _, _, C, _, _), "TAU", non_negative, "τ",                             \
    "comp-adagrad τ ≥ 0: weight of the diagonal block on the complement of the SRHT's range")                           \
  X(flag, bool, diag_rescale, "diag-rescale", false, learner, (_, _, N, _, _, O), "", any, "D_t",                       \
    "SON variants and full-on: predict with D_t^{-1/2}x_t, step with D_{t+1}^{-1/2}x_t, D_t = D₁ + diag(Σ_{s<t} g_s g_sᵀ) (SON §5.2)") \
  X(number, double, rescale_d1, "rescale-d1", 0.1, learner, (_, _, N, _, _, O), "D1", positive, "D₁",                 \
    "--diag-rescale's D₁ = D1·I (SON §5.2, footnote 6: 0.1)")                                                           \
  X(list, std::vector<double>, oja_gamma, "oja-gamma", {}, learner, (_, _, N, _, _, _),                                 \
    "G[,G...]", unit_interval, "Γ_t",                                                                                   \
    "oja-son: Γ_t = diag(γ_1..γ_ℓ)/t, one γ for every row or ℓ comma-separated values (default: Γ_t = I/t)")            \
  X(flag, bool, auto_tune, "auto", false, learner, (_, _, _, _, _, _), "", any, "",                                    \
    "tuning-free: race candidates of η (and α for SON) over the first auto-examples examples, keep the winner "         \
    "(every learner; AutoTunedLearner)")                                                                                \
  X(number, int64_t, auto_examples, "auto-examples", 2000, learner, (_, _, _, _, _, _), "N", positive, "",              \
    "--auto: examples of the race (the candidates step on each; the fewest online mistakes on its second half wins)")                 \
  X(number, int, grid_rows, "grid-rows", 0, layout, (_, _, _, _, F, O), "R", non_negative, "",                          \
    "ada-full, ada-full-da, full-on: rows of the ScaLAPACK process grid, a divisor of the rank count (0: the most "     \
    "nearly square grid)")                                                                                             \
  X(choice, ScaleRule, scale, "scale", ScaleRule::first_example, learner, (D, A, N, C, F, O), "R", any, "",            \
    "every learner: first-example takes η, δ, λ₁, λ₂ (AdaGrad family) and α (SON, full-on) relative to the first "     \
    "example x with a nonzero norm (η/r, δ·r, λ₁·r, λ₂·r², α·‖x‖² or with diag-rescale D₁·r², r the RMS of x's "  \
    "nonzero values), so that rescaling the data changes nothing; none takes them as given (the papers' settings)")  \
  X(number, double, divergence, "divergence", 100.0, learner, (_, _, _, _, _, _), "F", non_negative, "",              \
    "every learner: stop with an error when the mean loss over a window of 1,000 examples, online or of the model's "  \
    "own scores, passes F times the zero predictor's (0: no check)")

#endif /* ADASKETCH_LEARNERS_HYPERPARAMETER_TABLE_H */
