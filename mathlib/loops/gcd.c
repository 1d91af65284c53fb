/* Euclid's gcd: a while (b) loop whose trip count depends on the data. */
unsigned gcd(unsigned a, unsigned b)
{
  while (b != 0) {
    unsigned t = a % b;
    a = b;
    b = t;
  }
  return a;
}
