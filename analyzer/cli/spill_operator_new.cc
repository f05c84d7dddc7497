// The CLI's global operator new and delete: large arrays past the heap
// budget come from spill files (base/spill_memory.h), everything else from
// malloc as the standard library's own operators do. Replaced here, in the
// executable only: the collector's library and the tests' binaries keep the
// standard ones.
#include <cstdlib>
#include <new>

#include "analyzer/base/spill_memory.h"

namespace {

void* HeapAllocate(std::size_t bytes, std::size_t alignment) {
  if (bytes == 0) bytes = 1;
  for (;;) {
    void* p = nullptr;
    if (alignment <= alignof(std::max_align_t)) {
      p = std::malloc(bytes);
    } else if (posix_memalign(&p, alignment, bytes) != 0) {
      p = nullptr;
    }
    if (p != nullptr) return p;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) return nullptr;
    handler();
  }
}

void* Allocate(std::size_t bytes, std::size_t alignment) {
  // Spill blocks are page-aligned, enough for any alignment below a page.
  if (alignment <= 4096) {
    if (void* p = streamscope::MaybeSpillAllocate(bytes)) return p;
  }
  return HeapAllocate(bytes, alignment);
}

void* AllocateOrThrow(std::size_t bytes, std::size_t alignment) {
  void* p = Allocate(bytes, alignment);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void Release(void* p) {
  if (!streamscope::SpillFree(p)) std::free(p);
}

}  // namespace

void* operator new(std::size_t n) { return AllocateOrThrow(n, 0); }
void* operator new[](std::size_t n) { return AllocateOrThrow(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) { return AllocateOrThrow(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return AllocateOrThrow(n, static_cast<std::size_t>(a)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return Allocate(n, 0); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return Allocate(n, 0); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return Allocate(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return Allocate(n, static_cast<std::size_t>(a));
}

void operator delete(void* p) noexcept { Release(p); }
void operator delete[](void* p) noexcept { Release(p); }
void operator delete(void* p, std::size_t) noexcept { Release(p); }
void operator delete[](void* p, std::size_t) noexcept { Release(p); }
void operator delete(void* p, std::align_val_t) noexcept { Release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { Release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { Release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { Release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { Release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { Release(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { Release(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { Release(p); }
