// A vector that keeps its first N elements inline: the parsers' short lists (the call segments of
// one reply, its special tokens) then cost no allocation. Only for trivially copyable elements,
// which it copies as bytes. Not thread-safe; a plain value.
//
//   SmallVector<std::pair<size_t, size_t>, 8> cuts;
//   cuts.emplace_back(begin, end);
//   for (const auto& [b, e] : cuts) ...
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <type_traits>
#include <utility>

namespace keel::detail {

template <class T, std::size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T> && N > 0);

 public:
  SmallVector() = default;
  SmallVector(const SmallVector& o) { append(o.data(), o.size()); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) {
      size_ = 0;
      append(o.data(), o.size());
    }
    return *this;
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }
  operator std::span<const T>() const { return {data_, size_}; }

  void push_back(const T& v) {
    if (size_ == capacity_) grow();
    ::new (static_cast<void*>(data_ + size_)) T(v);
    ++size_;
  }
  void pop_back() { --size_; }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    push_back(T{std::forward<Args>(args)...});
    return back();
  }

 private:
  void append(const T* p, std::size_t n) {
    while (capacity_ < size_ + n) grow();
    if (n != 0) std::memcpy(static_cast<void*>(data_ + size_), static_cast<const void*>(p), n * sizeof(T));
    size_ += n;
  }
  void grow() {
    std::unique_ptr<T[]> bigger(new T[capacity_ * 2]);
    std::memcpy(static_cast<void*>(bigger.get()), static_cast<const void*>(data_), size_ * sizeof(T));
    heap_ = std::move(bigger);
    data_ = heap_.get();
    capacity_ *= 2;
  }

  alignas(T) unsigned char inline_[N * sizeof(T)];  // raw: elements are created as they are added
  std::unique_ptr<T[]> heap_;                       // set once the elements outgrow inline_
  // The elements: inline_ or heap_ (a member, so that reading one needs no test). A copy sets its
  // own, so the pointer never refers to another vector's room.
  T* data_ = std::launder(reinterpret_cast<T*>(inline_));
  std::size_t size_ = 0;
  std::size_t capacity_ = N;
};

}  // namespace keel::detail
