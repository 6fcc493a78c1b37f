/* Tests of the scheme model (schemes/). */
#include <criterion/criterion.h>

#include "schemes/scheme.h"

Test(schemes, standard_algorithm_has_nmp_terms)
{
    scheme_format f = {2, 3, 4};
    scheme *s = scheme_standard(f);
    cr_assert_not_null(s);
    cr_assert_eq(s->rank, 24);
    scheme_free(s);
}
