/* The plain MPI ping-pong that halfperf's mpi transport and its raw-MPI
 * baseline row are held against (scripts/mpi-baseline.sh builds it with
 * mpicc and runs it beside `halfperf run pingpong --transport mpi`).
 *
 * Two ranks, 8 bytes each way, MPI_Send then MPI_Recv on rank 0 and the
 * reverse on rank 1, as a C programmer writes it: MPI_Init (no thread
 * level asked), each rank pinned to the CPU its node-local rank picks from
 * the CPUs it may use (as halfperf pins its processes), a warm-up, then
 * TRIALS batches of REPS round trips timed with CLOCK_MONOTONIC on rank 0.
 * Prints one line: the one-way time (batch / 2 REPS) per trial, min,
 * median and max, in ns.
 *
 * With a third argument `variants`, every trial times, in turn, the same
 * ping-pong written the ways a transport that keeps a deadline can write it
 * (every wait a loop of MPI_Test, never a blocking call), and prints a line
 * per variant:
 *   send-recv    MPI_Send / MPI_Recv (the plain program);
 *   test         MPI_Isend then MPI_Test / MPI_Irecv then MPI_Test until done,
 *                the status asked and MPI_Get_count read (what halfperf's
 *                mpi transport calls for a message);
 *   persistent   MPI_Send_init / MPI_Recv_init once, then MPI_Start and
 *                MPI_Test each message, status and MPI_Get_count as above
 *                (no request made and freed a message; in Open MPI 4.1.4
 *                about twice as slow as the others, so not used);
 *   blocking     MPI_Send / MPI_Recv with the status asked and MPI_Get_count
 *                read, each call between two relaxed stores to a watch word
 *                (what halfperf's mpi transport calls for a message when a
 *                watchdog thread holds the deadline; with Open MPI it reads
 *                the count from the status instead of MPI_Get_count);
 *   status       MPI_Send / MPI_Recv with the status asked (not read);
 *   count        as status, and MPI_Get_count read.
 *
 * Usage: mpirun -n 2 --bind-to none mpi-pingpong [TRIALS [REPS [variants]]]
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Pins the process to the k-th CPU (k = node-local rank, modulo their
 * number) of the CPUs it may use; returns that CPU, or -1. */
static int pin(int k) {
  cpu_set_t allowed, one;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return -1;
  int n = CPU_COUNT(&allowed), seen = 0;
  if (n == 0) return -1;
  k %= n;
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    if (seen++ == k) {
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      return sched_setaffinity(0, sizeof one, &one) == 0 ? cpu : -1;
    }
  }
  return -1;
}

static void batch(int rank, long reps, char *out, char *in) {
  int peer = 1 - rank;
  for (long i = 0; i < reps; i++) {
    if (rank == 0) {
      MPI_Send(out, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
      MPI_Recv(in, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(in, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(out, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
    }
  }
}

/* MPI_Test until the request completes; the message's length. */
static int test_until_done(MPI_Request *r) {
  int done = 0, n = 0;
  MPI_Status st;
  while (!done) MPI_Test(r, &done, &st);
  MPI_Get_count(&st, MPI_BYTE, &n);
  return n;
}

static void batch_test(int rank, long reps, char *out, char *in) {
  int peer = 1 - rank;
  MPI_Request r;
  for (long i = 0; i < reps; i++) {
    if (rank == 0) {
      MPI_Isend(out, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &r);
      test_until_done(&r);
      MPI_Irecv(in, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &r);
      if (test_until_done(&r) != 8) MPI_Abort(MPI_COMM_WORLD, 3);
    } else {
      MPI_Irecv(in, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &r);
      if (test_until_done(&r) != 8) MPI_Abort(MPI_COMM_WORLD, 3);
      MPI_Isend(out, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &r);
      test_until_done(&r);
    }
  }
}

/* The watch word a watchdog would sample (nothing reads it here). */
static unsigned long long watch_word;

static void arm(unsigned long long v) { __atomic_store_n(&watch_word, v, __ATOMIC_RELAXED); }

static void batch_blocking(int rank, long reps, char *out, char *in) {
  int peer = 1 - rank, n = 0;
  unsigned long long seq = 0;
  MPI_Status st;
  for (long i = 0; i < reps; i++) {
    if (rank == 0) {
      arm(++seq << 24 | 2);
      MPI_Send(out, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
      arm(seq << 24);
      arm(++seq << 24 | 2);
      MPI_Recv(in, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &st);
      arm(seq << 24);
      MPI_Get_count(&st, MPI_BYTE, &n);
      if (n != 8) MPI_Abort(MPI_COMM_WORLD, 3);
    } else {
      arm(++seq << 24 | 1);
      MPI_Recv(in, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &st);
      arm(seq << 24);
      MPI_Get_count(&st, MPI_BYTE, &n);
      if (n != 8) MPI_Abort(MPI_COMM_WORLD, 3);
      arm(++seq << 24 | 1);
      MPI_Send(out, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
      arm(seq << 24);
    }
  }
}

/* MPI_Send / MPI_Recv with the status asked, and MPI_Get_count read when
 * `count`. */
static void batch_status(int rank, long reps, char *out, char *in, int count) {
  int peer = 1 - rank, n = 8;
  MPI_Status st;
  for (long i = 0; i < reps; i++) {
    if (rank == 0) {
      MPI_Send(out, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
      MPI_Recv(in, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &st);
      if (count) MPI_Get_count(&st, MPI_BYTE, &n);
      if (n != 8) MPI_Abort(MPI_COMM_WORLD, 3);
    } else {
      MPI_Recv(in, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &st);
      if (count) MPI_Get_count(&st, MPI_BYTE, &n);
      if (n != 8) MPI_Abort(MPI_COMM_WORLD, 3);
      MPI_Send(out, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
    }
  }
}

static void batch_persistent(int rank, long reps, MPI_Request *send, MPI_Request *recv) {
  for (long i = 0; i < reps; i++) {
    if (rank == 0) {
      MPI_Start(send);
      test_until_done(send);
      MPI_Start(recv);
      if (test_until_done(recv) != 8) MPI_Abort(MPI_COMM_WORLD, 3);
    } else {
      MPI_Start(recv);
      if (test_until_done(recv) != 8) MPI_Abort(MPI_COMM_WORLD, 3);
      MPI_Start(send);
      test_until_done(send);
    }
  }
}

/* The variants in one job: every trial times each in turn. */
static void variants(int rank, int trials, long reps, char *out, char *in) {
  enum { VARIANTS = 6 };
  const char *names[VARIANTS] = {"send-recv", "test", "persistent", "blocking", "status", "count"};
  double *t[VARIANTS];
  MPI_Request send, recv;
  int peer = 1 - rank;
  MPI_Send_init(out, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &send);
  MPI_Recv_init(in, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &recv);
  for (int v = 0; v < VARIANTS; v++) t[v] = calloc((size_t)trials, sizeof(double));
  for (int trial = -1; trial < trials; trial++) { /* -1: the warm-up */
    for (int v = 0; v < VARIANTS; v++) {
      MPI_Barrier(MPI_COMM_WORLD);
      double start = now_ns();
      if (v == 0) batch(rank, reps, out, in);
      else if (v == 1) batch_test(rank, reps, out, in);
      else if (v == 2) batch_persistent(rank, reps, &send, &recv);
      else if (v == 3) batch_blocking(rank, reps, out, in);
      else batch_status(rank, reps, out, in, v == 5);
      if (trial >= 0) t[v][trial] = (now_ns() - start) / (2.0 * (double)reps);
    }
  }
  for (int v = 0; v < VARIANTS; v++) {
    if (rank == 0) {
      qsort(t[v], (size_t)trials, sizeof(double), cmp);
      printf("%-10s 8 B one-way ns: min %.1f median %.1f max %.1f (trials %d, reps %ld)\n",
             names[v], t[v][0], t[v][trials / 2], t[v][trials - 1], trials, reps);
    }
    free(t[v]);
  }
  MPI_Request_free(&send);
  MPI_Request_free(&recv);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int trials = argc > 1 ? atoi(argv[1]) : 15;
  long reps = argc > 2 ? atol(argv[2]) : 5000;
  if (size != 2 || trials < 1 || trials > 10000 || reps < 1) {
    if (rank == 0) fprintf(stderr, "mpi-pingpong: needs 2 ranks, 1..10000 trials and reps >= 1\n");
    MPI_Finalize();
    return 2;
  }
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int node_rank;
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_free(&node);
  int cpu = pin(node_rank);
  char out[8], in[8];
  memset(out, 7, sizeof out);
  if (argc > 3 && strcmp(argv[3], "variants") == 0) {
    variants(rank, trials, reps, out, in);
    MPI_Finalize();
    return 0;
  }
  double *one_way = calloc((size_t)trials, sizeof *one_way);
  batch(rank, reps, out, in); /* warm-up */
  for (int t = 0; t < trials; t++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double start = now_ns();
    batch(rank, reps, out, in);
    one_way[t] = (now_ns() - start) / (2.0 * (double)reps);
  }
  int cpus[2] = {cpu, -1};
  if (rank == 1) MPI_Send(&cpu, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
  else MPI_Recv(&cpus[1], 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rank == 0) {
    qsort(one_way, (size_t)trials, sizeof *one_way, cmp);
    printf("plain-mpi-pingpong 8 B one-way ns: min %.1f median %.1f max %.1f (trials %d, reps %ld, cpus %d,%d)\n",
           one_way[0], one_way[trials / 2], one_way[trials - 1], trials, reps, cpus[0], cpus[1]);
  }
  free(one_way);
  MPI_Finalize();
  return 0;
}
