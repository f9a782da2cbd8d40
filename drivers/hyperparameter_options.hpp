#pragma once
// `train`'s options for the hyperparameter table (adasketch/learners/hyperparameters.hpp): declared,
// read into a LearnerSpec, and taken back from a checkpoint's spec, one loop over the table each.
#include <string>
#include <string_view>

#include "adasketch/learners/learner.hpp"
#include "cli_options.hpp"

namespace adasketch::driver {

/// Declares one option per row of the table, with its type, placeholder, default and help.
void add_hyperparameter_options(OptionParser& parser);
/// Reads every row's option into spec. Throws InvalidArgument naming the option ("option --ell: must
/// be ≥ 0, got -3", "option --form: unknown form …").
void read_hyperparameter_options(const OptionParser& opts, LearnerSpec& spec);
/// Makes a checkpoint's hyperparameters the defaults of the options not given; a layout row keeps its
/// own default unless the saved value fits `ranks` (the grid's rows must divide the rank count).
void default_hyperparameter_options(OptionParser& opts, const LearnerSpec& saved, int ranks);
/// `train`'s option for a field of LearnerSpec (a table row's member, or algorithm, loss, classes).
std::string option_of_field(std::string_view field);

}  // namespace adasketch::driver
