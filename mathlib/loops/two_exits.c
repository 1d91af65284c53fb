/* A loop with two exits: a break and a return. */
int two_exits(int start, int step)
{
  int v = start;
  int k;
  for (k = 0; k < 200; k++) {
    v = v * 3 + step;
    if ((v & 0xff) == 0x2a)
      return -k;
    if (v < -100000 || v > 100000)
      break;
    v = v % 1000;
  }
  return v + k;
}
