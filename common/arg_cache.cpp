#include "common/arg_cache.h"

#include <algorithm>

namespace gpubench {
namespace {
std::vector<detail::ArgCacheBase*>& caches() {
  static std::vector<detail::ArgCacheBase*> list;
  return list;
}
}  // namespace

detail::ArgCacheBase::ArgCacheBase() { caches().push_back(this); }
detail::ArgCacheBase::~ArgCacheBase() {
  auto& list = caches();
  list.erase(std::remove(list.begin(), list.end(), this), list.end());
}

void release_all_arg_caches() {
  for (detail::ArgCacheBase* cache : caches()) cache->clear();
}

}  // namespace gpubench
