#pragma once
// Deterministic, platform-independent randomness for the generators: the same
// seed gives the same trace on every machine and standard library (so no
// <random> distributions, whose outputs are implementation-defined).
#include <cstdint>

namespace lockstep::gen {

inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// A stateless hash of a few words; used where values must be recomputable
// on demand (e.g. the edges of a graph that is never stored).
inline uint64_t hash3(uint64_t a, uint64_t b, uint64_t c = 0) {
  return mix64(mix64(mix64(a + 0x9e3779b97f4a7c15ull) ^ (b + 0x632be59bd9b4e019ull)) ^ (c + 0x85ebca6b0c3a8f27ull));
}

class Rng {
 public:
  explicit Rng(uint64_t seed, uint64_t stream = 0) : state_(hash3(seed, stream, 0x5eed)) {}
  uint64_t next() { return mix64(state_ += 0x9e3779b97f4a7c15ull); }
  // Uniform in [0, n); n > 0.
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }

 private:
  uint64_t state_;
};

}  // namespace lockstep::gen
