// A FIFO on a growable circular buffer: no allocation per push once it has
// reached its working size (std::deque allocates blocks as it moves).
#pragma once
#include <cstddef>
#include <utility>
#include <vector>

namespace relgpu::mem {

template <class T>
class Ring {
 public:
  explicit Ring(size_t cap = 8) : buf_(round_up(cap)) {}
  bool empty() const { return n_ == 0; }
  size_t size() const { return n_; }
  T& front() { return buf_[head_]; }
  const T& front() const { return buf_[head_]; }
  T& operator[](size_t i) { return buf_[(head_ + i) & (buf_.size() - 1)]; }
  const T& operator[](size_t i) const { return buf_[(head_ + i) & (buf_.size() - 1)]; }
  void push_back(const T& v) {
    if (n_ == buf_.size()) grow();
    buf_[(head_ + n_) & (buf_.size() - 1)] = v;
    ++n_;
  }
  void pop_front() {
    head_ = (head_ + 1) & (buf_.size() - 1);
    --n_;
  }
  void clear() { head_ = n_ = 0; }

 private:
  static size_t round_up(size_t c) {
    size_t p = 1;
    while (p < c) p <<= 1;
    return p;
  }
  void grow() {
    std::vector<T> nb(buf_.size() * 2);
    for (size_t i = 0; i < n_; ++i) nb[i] = std::move((*this)[i]);
    buf_.swap(nb);
    head_ = 0;
  }
  std::vector<T> buf_;
  size_t head_ = 0, n_ = 0;
};

}  // namespace relgpu::mem
