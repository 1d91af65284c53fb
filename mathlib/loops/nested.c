/* Nested loops: the inner trip count differs per lane, the outer one is uniform. */
int nested(int n)
{
  int acc = 0;
  for (int i = 0; i < 8; i++) {
    int m = (n >> i) & 15;
    for (int j = 0; j < m; j++) {
      acc += i * j + (acc & 7);
      if (acc > 5000)
        acc -= 4999;
    }
  }
  return acc;
}
