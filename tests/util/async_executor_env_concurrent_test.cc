// AsyncExecutorEnv through the Env interface, without a DB: loading by name
// and options, each pool, UnSchedule's exact counts and callbacks,
// StartThread/WaitForJoin, thread counts and reservations, lowered
// priorities, fair turns between tags. Runs under TSan (label `concurrent`).

#include <gtest/gtest.h>
#include <linux/ioprio.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "plugin/rocksdb_cuckoo.h"
#include "rocksdb/convenience.h"
#include "rocksdb/env.h"
#include "rocksdb/utilities/object_registry.h"
#include "tests/support/blocking_helpers.h"
#include "tests/support/status_assertions.h"
#include "util/async_executor_env.h"

namespace rocksdb_cuckoo {
namespace {

using cuckoo_test::Counter;
using cuckoo_test::Gate;
using ROCKSDB_NAMESPACE::ConfigOptions;
using ROCKSDB_NAMESPACE::CpuPriority;
using ROCKSDB_NAMESPACE::Env;
using ROCKSDB_NAMESPACE::ObjectLibrary;
using ROCKSDB_NAMESPACE::Status;

ConfigOptions StrictConfig() {
  ConfigOptions config;
  config.ignore_unknown_options = false;
  config.ignore_unsupported_options = false;
  return config;
}

// For tests that hold a pool's only thread and look at what queues behind
// it: without the helper, nothing else runs meanwhile.
AsyncExecutorEnvOptions WithoutHelper() {
  AsyncExecutorEnvOptions options;
  options.starvation_helper = false;
  return options;
}

class AsyncExecutorEnvTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // The tests link the static library, which leaves registration to us.
    register_rocksdb_cuckoo(*ObjectLibrary::Default(), "");
  }
};

// Schedule's C-style job: the argument says what to do.
struct Job {
  Counter* ran = nullptr;
  Gate* gate = nullptr;
  Counter* started = nullptr;
  std::atomic<int> unscheduled{0};
  std::string thread_name;

  static void Run(void* arg) {
    Job* job = static_cast<Job*>(arg);
    char name[16] = {};
    pthread_getname_np(pthread_self(), name, sizeof(name));
    job->thread_name = name;
    if (job->started != nullptr) job->started->Add();
    if (job->gate != nullptr) job->gate->Wait();
    if (job->ran != nullptr) job->ran->Add();
  }
  static void Unschedule(void* arg) { static_cast<Job*>(arg)->unscheduled++; }
};

TEST_F(AsyncExecutorEnvTest, CreateFromStringByName) {
  Env* env = nullptr;
  std::shared_ptr<Env> guard;
  ASSERT_OK(
      Env::CreateFromString(StrictConfig(), "AsyncExecutorEnv", &env, &guard));
  ASSERT_NE(env, nullptr);
  EXPECT_EQ(env, guard.get());
  EXPECT_TRUE(env->IsInstanceOf("AsyncExecutorEnv"));
  EXPECT_STREQ(env->Name(), "AsyncExecutorEnv");
  EXPECT_NE(env->CheckedCast<AsyncExecutorEnv>(), nullptr);
  // The URI form db_bench's --env_uri goes through.
  Env* by_uri = nullptr;
  std::shared_ptr<Env> uri_guard;
  ConfigOptions config = StrictConfig();
  ASSERT_OK(
      Env::CreateFromUri(config, "AsyncExecutorEnv", "", &by_uri, &uri_guard));
  EXPECT_TRUE(by_uri->IsInstanceOf("AsyncExecutorEnv"));
  EXPECT_NE(by_uri, env);  // a fresh Env each time
}

// A DB does its file I/O and reads time through these two: they must be the
// wrapped Env's own, not adapters that route every call back through this
// Env's legacy file and clock methods.
TEST_F(AsyncExecutorEnvTest, HandsOutTheTargetsFileSystemAndClock) {
  Env* by_name = nullptr;
  std::shared_ptr<Env> guard;
  ASSERT_OK(Env::CreateFromString(StrictConfig(), "AsyncExecutorEnv", &by_name,
                                  &guard));
  EXPECT_EQ(by_name->GetFileSystem(), Env::Default()->GetFileSystem());
  EXPECT_EQ(by_name->GetSystemClock(), Env::Default()->GetSystemClock());

  std::unique_ptr<Env> in_memory(ROCKSDB_NAMESPACE::NewMemEnv(Env::Default()));
  AsyncExecutorEnv wrapping(in_memory.get());
  EXPECT_EQ(wrapping.GetFileSystem(), in_memory->GetFileSystem());
  EXPECT_EQ(wrapping.GetSystemClock(), in_memory->GetSystemClock());
  EXPECT_NE(wrapping.GetFileSystem(), Env::Default()->GetFileSystem());
}

TEST_F(AsyncExecutorEnvTest, OptionsConfigureThreadsAndRoundTrip) {
  Env* env = nullptr;
  std::shared_ptr<Env> guard;
  ASSERT_OK(Env::CreateFromString(
      StrictConfig(),
      "id=AsyncExecutorEnv;low_pri_threads=3;high_pri_threads=2;"
      "fair_share=false;starvation_helper=false",
      &env, &guard));
  EXPECT_EQ(env->GetBackgroundThreads(Env::LOW), 3);
  EXPECT_EQ(env->GetBackgroundThreads(Env::HIGH), 2);
  EXPECT_EQ(env->GetBackgroundThreads(Env::BOTTOM), 0);
  std::string serialized;
  ASSERT_OK(env->GetOptionString(StrictConfig(), &serialized));
  EXPECT_NE(serialized.find("low_pri_threads=3"), std::string::npos)
      << serialized;
  EXPECT_NE(serialized.find("fair_share=false"), std::string::npos)
      << serialized;
  EXPECT_NE(serialized.find("starvation_helper=false"), std::string::npos)
      << serialized;
}

TEST_F(AsyncExecutorEnvTest, BadOptionsAreInvalidArgumentsNamingTheOption) {
  for (const char* bad : {"id=AsyncExecutorEnv;low_pri_threads=-1",
                          "id=AsyncExecutorEnv;low_pri_threads=100000",
                          "id=AsyncExecutorEnv;high_pri_threads=two",
                          "id=AsyncExecutorEnv;no_such_option=1"}) {
    Env* env = nullptr;
    std::shared_ptr<Env> guard;
    Status s = Env::CreateFromString(StrictConfig(), bad, &env, &guard);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad << ": " << s.ToString();
    const std::string option = std::string(bad).substr(
        std::string(bad).find(';') + 1,
        std::string(bad).find('=', std::string(bad).find(';')) -
            std::string(bad).find(';') - 1);
    EXPECT_NE(s.ToString().find(option), std::string::npos) << s.ToString();
  }
}

TEST_F(AsyncExecutorEnvTest, EachPriorityRunsOnItsOwnPool) {
  AsyncExecutorEnv env;
  const Env::Priority pools[] = {Env::BOTTOM, Env::LOW, Env::HIGH, Env::USER};
  const char* names[] = {"cuckoo-bottom", "cuckoo-low", "cuckoo-high",
                         "cuckoo-user"};
  Counter ran;
  Job jobs[4];
  for (int i = 0; i < 4; ++i) {
    env.SetBackgroundThreads(1, pools[i]);
    jobs[i].ran = &ran;
    env.Schedule(&Job::Run, &jobs[i], pools[i]);
  }
  ran.WaitFor(4);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(jobs[i].thread_name, names[i]);
}

// A gated job holds the pool's only thread while others queue behind it.
class GatedPool {
 public:
  GatedPool(Env* env, Env::Priority pri) {
    env->SetBackgroundThreads(1, pri);
    blocker_.gate = &gate_;
    blocker_.started = &started_;
    env->Schedule(&Job::Run, &blocker_, pri);
    started_.WaitFor(1);
  }
  void Open() { gate_.Open(); }

 private:
  Gate gate_;
  Counter started_;
  Job blocker_;
};

TEST_F(AsyncExecutorEnvTest, UnScheduleRemovesExactlyTheTaggedJobs) {
  AsyncExecutorEnv env(Env::Default(), WithoutHelper());
  GatedPool low(&env, Env::LOW);
  int tag_a = 0;
  int tag_b = 0;
  Counter ran;
  std::vector<Job> a_jobs(5);
  std::vector<Job> b_jobs(3);
  for (Job& job : a_jobs) {
    job.ran = &ran;
    env.Schedule(&Job::Run, &job, Env::LOW, &tag_a, &Job::Unschedule);
  }
  for (Job& job : b_jobs) {
    job.ran = &ran;
    env.Schedule(&Job::Run, &job, Env::LOW, &tag_b, &Job::Unschedule);
  }
  EXPECT_EQ(env.GetThreadPoolQueueLen(Env::LOW), 8u);
  EXPECT_EQ(env.UnSchedule(&tag_a, Env::HIGH), 0);  // wrong pool
  EXPECT_EQ(env.UnSchedule(&tag_a, Env::LOW), 5);
  EXPECT_EQ(env.UnSchedule(&tag_a, Env::LOW), 0);
  for (const Job& job : a_jobs) EXPECT_EQ(job.unscheduled.load(), 1);
  EXPECT_EQ(env.GetThreadPoolQueueLen(Env::LOW), 3u);
  low.Open();
  ran.WaitFor(3);
  for (const Job& job : b_jobs) EXPECT_EQ(job.unscheduled.load(), 0);
}

TEST_F(AsyncExecutorEnvTest, UnScheduleWithoutUnscheduleFunctionStillCounts) {
  AsyncExecutorEnv env(Env::Default(), WithoutHelper());
  GatedPool high(&env, Env::HIGH);
  int tag = 0;
  Job job;
  env.Schedule(&Job::Run, &job, Env::HIGH, &tag, nullptr);
  EXPECT_EQ(env.UnSchedule(&tag, Env::HIGH), 1);
  high.Open();
}

// Jobs scheduled and unscheduled from several threads while workers run
// them: each job runs or is unscheduled, never both, and UnSchedule's
// counts equal the unschedule callbacks.
TEST_F(AsyncExecutorEnvTest, UnScheduleRacingWorkersIsExact) {
  AsyncExecutorEnv env;
  env.SetBackgroundThreads(2, Env::LOW);
  constexpr int kThreads = 3;
  constexpr int kPerThread = 2000;
  struct CountedJob {
    std::atomic<int>* ran;
    std::atomic<int>* unscheduled;
    static void Run(void* arg) { (*static_cast<CountedJob*>(arg)->ran)++; }
    static void Unschedule(void* arg) {
      (*static_cast<CountedJob*>(arg)->unscheduled)++;
    }
  };
  std::atomic<int> ran{0};
  std::atomic<int> unscheduled{0};
  std::atomic<int> counted{0};
  std::vector<CountedJob> jobs(kThreads * kPerThread,
                               CountedJob{&ran, &unscheduled});
  int tags[kThreads];
  std::atomic<bool> scheduling{true};
  std::thread unscheduler([&] {
    for (int round = 0; scheduling.load(); ++round) {
      counted += env.UnSchedule(&tags[round % kThreads], Env::LOW);
    }
  });
  std::vector<std::thread> schedulers;
  for (int t = 0; t < kThreads; ++t) {
    schedulers.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        env.Schedule(&CountedJob::Run, &jobs[t * kPerThread + i], Env::LOW,
                     &tags[t], &CountedJob::Unschedule);
      }
    });
  }
  for (auto& t : schedulers) t.join();
  scheduling.store(false);
  unscheduler.join();
  while (ran.load() + unscheduled.load() < kThreads * kPerThread) {
    std::this_thread::yield();
  }
  EXPECT_EQ(ran.load() + unscheduled.load(), kThreads * kPerThread);
  EXPECT_EQ(counted.load(), unscheduled.load());
}

TEST_F(AsyncExecutorEnvTest, WaitForJoinJoinsStartedThreads) {
  AsyncExecutorEnv env;
  std::atomic<int> done{0};
  for (int i = 0; i < 8; ++i) {
    env.StartThread([](void* arg) { (*static_cast<std::atomic<int>*>(arg))++; },
                    &done);
  }
  env.WaitForJoin();
  EXPECT_EQ(done.load(), 8);
  env.WaitForJoin();  // nothing left to join
  EXPECT_EQ(done.load(), 8);
}

// db_stress calls exit() on a thread it started with StartThread, which
// runs the Env's destructor there: WaitForJoin must not join that thread
// (std::thread::join on itself throws, and the process aborts).
TEST_F(AsyncExecutorEnvTest, WaitForJoinFromAStartedThreadSkipsItself) {
  AsyncExecutorEnv env;
  struct State {
    AsyncExecutorEnv* env;
    std::atomic<bool> returned{false};
  } state{&env};
  env.StartThread(
      [](void* arg) {
        auto* s = static_cast<State*>(arg);
        s->env->WaitForJoin();
        s->returned.store(true);
      },
      &state);
  // The old code aborted here; a WaitForJoin that blocked instead would
  // never return.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!state.returned.load() &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  ASSERT_TRUE(state.returned.load());
  env.WaitForJoin();  // the thread was detached, not left to join
}

TEST_F(AsyncExecutorEnvTest, BackgroundThreadCountsAndReservations) {
  AsyncExecutorEnv env;
  EXPECT_EQ(env.GetBackgroundThreads(Env::LOW), 0);
  env.IncBackgroundThreadsIfNeeded(3, Env::LOW);
  EXPECT_EQ(env.GetBackgroundThreads(Env::LOW), 3);
  env.IncBackgroundThreadsIfNeeded(1, Env::LOW);  // only grows
  EXPECT_EQ(env.GetBackgroundThreads(Env::LOW), 3);
  env.SetBackgroundThreads(2, Env::LOW);
  EXPECT_EQ(env.GetBackgroundThreads(Env::LOW), 2);
  EXPECT_EQ(env.GetBackgroundThreads(Env::HIGH), 0);

  EXPECT_EQ(env.ReserveThreads(5, Env::LOW), 2);
  EXPECT_EQ(env.ReserveThreads(1, Env::LOW), 0);
  EXPECT_EQ(env.ReleaseThreads(5, Env::LOW), 2);
  EXPECT_EQ(env.ReserveThreads(1, Env::HIGH), 0);  // no threads there
  EXPECT_EQ(env.GetThreadPoolQueueLen(Env::TOTAL), 0u);
}

TEST_F(AsyncExecutorEnvTest, LoweredPrioritiesApplyToTheWorkers) {
  AsyncExecutorEnv env;
  env.SetBackgroundThreads(1, Env::LOW);
  env.LowerThreadPoolIOPriority(Env::LOW);
  ASSERT_OK(env.LowerThreadPoolCPUPriority(Env::LOW, CpuPriority::kIdle));
  struct Probe {
    int policy = -1;
    int ioprio = -1;
    Counter done;
    static void Run(void* arg) {
      Probe* probe = static_cast<Probe*>(arg);
      probe->policy = sched_getscheduler(0);
      probe->ioprio =
          static_cast<int>(syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, 0));
      probe->done.Add();
    }
  } probe;
  env.Schedule(&Probe::Run, &probe, Env::LOW);
  probe.done.WaitFor(1);
  EXPECT_EQ(probe.policy, SCHED_IDLE);
  EXPECT_EQ(IOPRIO_PRIO_CLASS(probe.ioprio), IOPRIO_CLASS_IDLE);
  EXPECT_TRUE(env.LowerThreadPoolCPUPriority(Env::TOTAL, CpuPriority::kLow)
                  .IsInvalidArgument());
}

// Two "DBs" (tags 16 bytes apart, as DBImpl addresses are) share one LOW
// thread; the one that floods it does not make the other wait its turn.
TEST_F(AsyncExecutorEnvTest, DbsSharingAPoolTakeTurns) {
  AsyncExecutorEnv env(Env::Default(), WithoutHelper());  // order alone
  GatedPool low(&env, Env::LOW);
  alignas(16) static char db_a[64];
  alignas(16) static char db_b[64];
  std::mutex mu;
  std::vector<int> order;
  struct Ordered {
    std::mutex* mu;
    std::vector<int>* order;
    int id;
    Counter* ran;
    static void Run(void* arg) {
      Ordered* job = static_cast<Ordered*>(arg);
      {
        std::lock_guard<std::mutex> lock(*job->mu);
        job->order->push_back(job->id);
      }
      job->ran->Add();
    }
  };
  Counter ran;
  std::vector<Ordered> jobs;
  for (int i = 0; i < 8; ++i) jobs.push_back({&mu, &order, i, &ran});
  jobs.push_back({&mu, &order, 100, &ran});
  // DB A's jobs carry both of its task tags (DBImpl address and +1).
  for (int i = 0; i < 8; ++i) {
    env.Schedule(&Ordered::Run, &jobs[i], Env::LOW, db_a + i % 2);
  }
  env.Schedule(&Ordered::Run, &jobs[8], Env::LOW, db_b);
  low.Open();
  ran.WaitFor(9);
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(order.size(), 9u);
  EXPECT_EQ(order[0], 0);
  EXPECT_EQ(order[1], 100);
}

TEST_F(AsyncExecutorEnvTest, StatsFileIsWrittenOnDestruction) {
  const std::string path = ::testing::TempDir() + "/async_executor_env_stats_" +
                           std::to_string(getpid()) + ".txt";
  std::remove(path.c_str());
  {
    AsyncExecutorEnvOptions options;
    options.low_pri_threads = 1;
    options.stats_file = path;
    AsyncExecutorEnv env(Env::Default(), options);
    Counter ran;
    Job job;
    job.ran = &ran;
    env.Schedule(&Job::Run, &job, Env::LOW);
    ran.WaitFor(1);
  }
  FILE* f = fopen(path.c_str(), "r");
  ASSERT_NE(f, nullptr);
  char buf[4096] = {};
  const size_t n = fread(buf, 1, sizeof(buf) - 1, f);
  fclose(f);
  std::remove(path.c_str());
  const std::string text(buf, n);
  EXPECT_NE(text.find("AsyncExecutorEnv"), std::string::npos) << text;
  EXPECT_NE(text.find("low: threads=1"), std::string::npos) << text;
  EXPECT_NE(text.find("ran=1"), std::string::npos) << text;
}

TEST_F(AsyncExecutorEnvTest, DestructionRunsQueuedJobs) {
  Counter ran;
  std::vector<Job> jobs(20);
  {
    AsyncExecutorEnv env;  // no threads at all: nothing runs before the end
    for (Job& job : jobs) {
      job.ran = &ran;
      env.Schedule(&Job::Run, &job, Env::BOTTOM);
    }
    EXPECT_EQ(env.GetThreadPoolQueueLen(Env::BOTTOM), 20u);
  }
  EXPECT_EQ(ran.value(), 20);
}

}  // namespace
}  // namespace rocksdb_cuckoo
