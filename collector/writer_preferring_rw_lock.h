// A reader-writer lock that lets a waiting writer in before new readers.
//
// std::shared_mutex is glibc's default pthread_rwlock, which prefers
// readers: application threads that look up pointers on every launch can
// then keep an allocating thread (cudaMalloc's callback) waiting without
// bound. Meets the SharedMutex requirements used by std::unique_lock and
// std::shared_lock. Not recursive. Thread-safe.
#ifndef STREAMSCOPE_COLLECTOR_WRITER_PREFERRING_RW_LOCK_H_
#define STREAMSCOPE_COLLECTOR_WRITER_PREFERRING_RW_LOCK_H_

#include <pthread.h>

namespace streamscope::collector {

class WriterPreferringRwLock {
 public:
  WriterPreferringRwLock() {
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&lock_, &attr);
    pthread_rwlockattr_destroy(&attr);
  }
  ~WriterPreferringRwLock() { pthread_rwlock_destroy(&lock_); }
  WriterPreferringRwLock(const WriterPreferringRwLock&) = delete;
  WriterPreferringRwLock& operator=(const WriterPreferringRwLock&) = delete;

  void lock() { pthread_rwlock_wrlock(&lock_); }
  void unlock() { pthread_rwlock_unlock(&lock_); }
  void lock_shared() { pthread_rwlock_rdlock(&lock_); }
  void unlock_shared() { pthread_rwlock_unlock(&lock_); }

 private:
  pthread_rwlock_t lock_;
};

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_WRITER_PREFERRING_RW_LOCK_H_
