// A request trace as CSV: a header naming the columns, then one request per line. Columns (any order;
// others are ignored): arrival_s (seconds from the start, >= 0), prompt_tokens (>= 1), output_tokens
// (>= 1); optionally, together, prefix_group (a whole number naming the prompts that begin alike) and
// prefix_tokens (how many leading prompt tokens they share, below prompt_tokens; 0: none), which the
// prefix cache reads. Lines may come in any order (sorted by arrival, ties keep file order); blank lines and lines
// starting with '#' are skipped. Every error names the file, line and column.
#pragma once

#include <string>
#include <vector>

#include "workloads/serving/requests.h"

namespace weft {

std::vector<Request> load_request_trace(const std::string& path);
std::vector<Request> parse_request_trace(const std::string& text, const std::string& source);

}  // namespace weft
