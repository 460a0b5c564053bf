// One object per key while anyone holds it: the SMs of one GPU ask for their
// chip's fault maps or RF delays and get the same instance, built once.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace relgpu::reliability {

template <class T>
std::shared_ptr<const T> shared_by_key(const std::string& key, const std::function<std::shared_ptr<const T>()>& make) {
  static std::mutex mu;
  static std::map<std::string, std::weak_ptr<const T>> live;
  std::lock_guard<std::mutex> lock(mu);
  std::shared_ptr<const T> p = live[key].lock();
  if (!p) {
    p = make();
    live[key] = p;
  }
  return p;
}

}  // namespace relgpu::reliability
