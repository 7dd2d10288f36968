#include "cost/assumption_fields.h"

#include <array>

namespace weft::cost {
namespace {

using A = CostAssumptions;
constexpr std::array kFields = {
    field<A, &A::years>("years", "years", "amortisation period of the capital (above 0)"),
    field<A, &A::pue>("pue", "", "facility power over IT power (1 or more)"),
    field<A, &A::usd_per_kwh>("usd_per_kwh", "USD/kWh", "electricity price (0 or more)"),
    field<A, &A::load>("load", "", "average draw over nameplate power (0 to 1)"),
    field<A, &A::utilisation>("utilisation", "", "fraction of the period doing billed work (above 0, at most 1)"),
};

}  // namespace

std::span<const Field<CostAssumptions>> assumption_fields() { return kFields; }

}  // namespace weft::cost
