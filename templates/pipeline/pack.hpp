// A minimal tuple for values that cross to a GPU by value: trivially copyable when its members are,
// and get<I>() callable from host and device code alike (std::tuple's accessors are not marked for
// the device). A pipeline keeps its nodes' parameters and per-replica states in one Pack each.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include "core/host_device.hpp"

namespace sextant::pipeline {

namespace detail {

template <std::size_t I, class... T>
struct TypeAt;
template <class T0, class... T>
struct TypeAt<0, T0, T...> {
  using type = T0;
};
template <std::size_t I, class T0, class... T>
struct TypeAt<I, T0, T...> {
  using type = typename TypeAt<I - 1, T...>::type;
};

template <std::size_t I, class T>
struct PackLeaf {
  T value{};
};

template <class Indices, class... T>
struct PackBase;
template <std::size_t... I, class... T>
struct PackBase<std::index_sequence<I...>, T...> : PackLeaf<I, T>... {};

}  // namespace detail

template <std::size_t I, class... T>
using type_at = typename detail::TypeAt<I, T...>::type;

template <class... T>
struct Pack : detail::PackBase<std::index_sequence_for<T...>, T...> {
  static constexpr std::size_t size = sizeof...(T);

  template <std::size_t I>
  SEXTANT_HD_INLINE type_at<I, T...>& get() noexcept {
    return static_cast<detail::PackLeaf<I, type_at<I, T...>>&>(*this).value;
  }
  template <std::size_t I>
  SEXTANT_HD_INLINE const type_at<I, T...>& get() const noexcept {
    return static_cast<const detail::PackLeaf<I, type_at<I, T...>>&>(*this).value;
  }
};

// A Pack holding `values` (host code).
template <class... T>
Pack<std::remove_cvref_t<T>...> make_pack(T&&... values) {
  Pack<std::remove_cvref_t<T>...> out;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((out.template get<I>() = std::forward<T>(values)), ...);
  }
  (std::index_sequence_for<T...>{});
  return out;
}

}  // namespace sextant::pipeline
