// Run-time value to compile-time parameter: dispatch<1, 2, 4>(n, f) calls f(std::integral_constant<int, n>{})
// for the listed n, so one line replaces a switch over template instantiations.
#pragma once

#include <stdexcept>
#include <string>
#include <type_traits>

namespace gpubench {

template <int First, int... Rest, class F>
decltype(auto) dispatch(int value, F&& f) {
  using Result = decltype(f(std::integral_constant<int, First>{}));
  const auto unknown = [&] {
    return std::invalid_argument("no variant for " + std::to_string(value) + "; built for " + std::to_string(First) +
                                 ((", " + std::to_string(Rest)) + ... + std::string()));
  };
  if constexpr (std::is_void_v<Result>) {
    const bool found = ((value == First ? (f(std::integral_constant<int, First>{}), true) : false) || ... ||
                        (value == Rest ? (f(std::integral_constant<int, Rest>{}), true) : false));
    if (!found) throw unknown();
  } else {
    Result result{};
    const bool found = ((value == First ? (result = f(std::integral_constant<int, First>{}), true) : false) || ... ||
                        (value == Rest ? (result = f(std::integral_constant<int, Rest>{}), true) : false));
    if (!found) throw unknown();
    return result;
  }
}

}  // namespace gpubench
