/* export: writing schemes for other programs, and the runtime's plan.
 *
 * Every writer takes a verified scheme and a stream; false on an I/O error.
 */
#ifndef FLIPGRAPH_EXPORT_H
#define FLIPGRAPH_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "../schemes/scheme.h"

/* ---- scheme writers (issue 6) ---- */

/* ---- the runtime's plan (issue 7) ---- */

#endif
