/* nothing here */
// really nothing
