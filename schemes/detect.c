/* Which kind of scheme file a buffer holds, from its content alone.
 *
 * The native header is unmistakable, and so is '{': a JSON object when the next
 * character that is not white space is '"' (its first key), else a Mathematica
 * list.  A term file is
 * .exp when its first term joins the first two factors with '*', and .txt
 * when they are separated by spaces or touch; every later line must agree
 * (read_exp.c refuses a mixed file at the first line that does not).  A first
 * line that begins like a term but is too broken to tell counts as .exp, so
 * that the reader, not the detector, says what is wrong and where. */
#include "read_internal.h"

#include <string.h>

static bool hspace(int ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v'; }
static bool digit(int ch) { return ch >= '0' && ch <= '9'; }

scheme_file_kind scheme_detect_kind(const char *buf, size_t len)
{
    if (!buf)
        return SCHEME_FILE_UNKNOWN;
    const unsigned char *b = (const unsigned char *)buf;
    size_t i = 0;
    if (scheme_is_npz(buf, len))
        return SCHEME_FILE_NPZ;
#define AT(k) ((k) < len ? (int)b[k] : -1)
    while (i < len && (hspace(b[i]) || b[i] == '\n'))
        i++;
    if (i == len)
        return SCHEME_FILE_UNKNOWN;
    static const char magic[] = "flipgraph-scheme";
    if (len - i >= sizeof magic - 1 && memcmp(b + i, magic, sizeof magic - 1) == 0)
        return SCHEME_FILE_NATIVE;
    int ch = b[i];
    if (ch == '{') { /* a JSON object's first key is a string; a Mathematica list's first term a list */
        size_t q = i + 1;
        while (q < len && (hspace(b[q]) || b[q] == '\n'))
            q++;
        return AT(q) == '"' ? SCHEME_FILE_JSON : SCHEME_FILE_M;
    }
    if (!(ch == '(' || ch == '-' || ch == '+' || digit(ch) || ch == 'a' || ch == 'b' || ch == 'c'))
        return SCHEME_FILE_UNKNOWN;
    /* Skip the first factor, then look at what separates it from the second. */
    size_t q = i;
    if (AT(q) == '-') {
        size_t r = q + 1;
        while (hspace(AT(r)))
            r++;
        if (AT(r) == '(' && rd_is_negated_term(buf, len, r)) { /* -( ... ): a negated term */
            q = r + 1;
            while (hspace(AT(q)))
                q++;
        }
    }
    if (AT(q) == '-' || AT(q) == '+') { /* a sign before a parenthesized factor */
        size_t r = q + 1;
        while (hspace(AT(r)))
            r++;
        if (AT(r) == '(')
            q = r;
    }
    if (AT(q) == '(') {
        while (q < len && b[q] != ')' && b[q] != '\n')
            q++;
        if (AT(q) != ')')
            return SCHEME_FILE_EXP;
        q++;
    } else {
        if (AT(q) == '+' || AT(q) == '-')
            q++;
        while (hspace(AT(q)))
            q++;
        if (digit(AT(q))) {
            while (digit(AT(q)))
                q++;
            while (hspace(AT(q)))
                q++;
            if (AT(q) == '*')
                q++;
            while (hspace(AT(q)))
                q++;
        }
        if (!(AT(q) >= 'a' && AT(q) <= 'z'))
            return SCHEME_FILE_EXP;
        q++;
        while (digit(AT(q)) || AT(q) == '_')
            q++;
    }
    while (hspace(AT(q)))
        q++;
    int sep = AT(q);
    if (sep == '*')
        return SCHEME_FILE_EXP;
    if (sep == '(' || sep == '+' || sep == '-' || digit(sep) || (sep >= 'a' && sep <= 'z'))
        return SCHEME_FILE_TXT;
    return SCHEME_FILE_EXP;
#undef AT
}

const char *scheme_file_kind_name(scheme_file_kind k)
{
    switch (k) {
    case SCHEME_FILE_EXP: return "exp";
    case SCHEME_FILE_TXT: return "txt";
    case SCHEME_FILE_M: return "m";
    case SCHEME_FILE_NATIVE: return "native";
    case SCHEME_FILE_NPZ: return "npz";
    case SCHEME_FILE_JSON: return "json";
    default: return "unknown";
    }
}

scheme_file_kind scheme_file_kind_parse(const char *name)
{
    if (!name)
        return SCHEME_FILE_UNKNOWN;
    static const scheme_file_kind kinds[] = {SCHEME_FILE_EXP, SCHEME_FILE_TXT, SCHEME_FILE_M,
                                             SCHEME_FILE_NATIVE, SCHEME_FILE_NPZ, SCHEME_FILE_JSON};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (strcmp(name, scheme_file_kind_name(kinds[i])) == 0)
            return kinds[i];
    return SCHEME_FILE_UNKNOWN;
}
