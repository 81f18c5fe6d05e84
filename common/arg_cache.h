// Keeps an experiment's expensive setup (buffers, chains) across Google Benchmark's iteration-count
// trials and repetitions, which all rerun the benchmark body with the same arguments. One entry:
// moving to new arguments frees the old setup before building the next. Every cache is emptied when
// the GPU session closes (release_all_arg_caches), so no device memory outlives the device's use.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace gpubench {

namespace detail {
class ArgCacheBase {
 public:
  ArgCacheBase();
  virtual ~ArgCacheBase();
  ArgCacheBase(const ArgCacheBase&) = delete;
  ArgCacheBase& operator=(const ArgCacheBase&) = delete;
  virtual void clear() = 0;
};
}  // namespace detail

// Empties every ArgCache of the process (called before the GPU session releases the device).
void release_all_arg_caches();

template <class T>
class ArgCache : public detail::ArgCacheBase {
 public:
  using Key = std::vector<std::int64_t>;

  template <class Make>
  T& get(const Key& key, Make&& make) {
    if (!value_ || key_ != key) {
      value_.reset();  // free first: two large setups may not fit on the device together
      value_ = std::make_unique<T>(make());
      key_ = key;
    }
    return *value_;
  }
  bool holds(const Key& key) const { return value_ && key_ == key; }
  void clear() override { value_.reset(); }

 private:
  Key key_;
  std::unique_ptr<T> value_;
};

}  // namespace gpubench
