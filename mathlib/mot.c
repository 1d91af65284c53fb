/* mot: the motivating example of EXPAND (Fig. 3(a) of the seed paper,
   "scalar original"), re-typed by us; names and shape kept as printed.
   `ix != 7` is always true since ix = hx & 3: that is the paper's code.  */

#include <math.h>

#define GET_FLOAT_WORD(i,d) \
do { \
  union { \
    float value; \
    int word; \
  } gf_u; \
  gf_u.value = (d); \
  (i) = gf_u.word; \
} while (0)

static const float two = 2.0;
static const float bp[] = {1.0, 1.5};

void mot(float x, float *y)
{
  int hx, ix, k;
  GET_FLOAT_WORD(hx,x);
  ix = hx&3;
  if(ix!=7) k=0; else k=1;
  if(ix==0) {
    *y = powf(bp[k], two);
    return;
  }
  *y = sqrtf(ix);
}
