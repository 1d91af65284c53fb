/* chroma: the outlined chroma-keying loop body of EXPAND (Fig. 4(b) of the
   seed paper), re-typed by us.  The paper's text lost the `||` operators of
   the condition in extraction, and has a typo `*bbblue`; both fixed here.  */

void chroma(unsigned char fred, unsigned char fgreen, unsigned char fblue,
            unsigned char *bred, unsigned char *bgreen, unsigned char *bblue)
{
  if (fred != 0 || fgreen != 0 || fblue != 255) {
    *bred = fred;
    *bgreen = fgreen;
    *bblue = fblue;
  }
}
