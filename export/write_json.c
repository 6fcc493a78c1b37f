/* JSON: the schema "flipgraph-scheme/1" of docs/export.md. */
#include <errno.h>
#include <inttypes.h>

#include "export.h"

static void json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static void json_str_or_null(FILE *out, const char *s)
{
    if (s && *s)
        json_str(out, s);
    else
        fputs("null", out);
}

static void json_id_or_null(FILE *out, int64_t v)
{
    if (v)
        fprintf(out, "%" PRId64, v);
    else
        fputs("null", out);
}

static void write_position(const scheme *s, int pos, FILE *out)
{
    int size = scheme_factor_size(s->fmt, pos);
    fprintf(out, "  \"%c\": [", "abc"[pos]);
    for (int r = 0; r < s->rank; r++) {
        fputs(r ? ",\n    [" : "\n    [", out);
        for (int e = 0; e < size; e++)
            fprintf(out, e ? ", %d" : "%d", export_coef(s, r, pos, e));
        fputc(']', out);
    }
    fputs(s->rank ? "\n  ]" : "]", out);
}

bool export_write_json(const scheme *s, const export_info *info, FILE *out)
{
    char hex[17], defname[64];
    if (!export_hash_hex(s, hex)) {
        errno = ENOMEM;
        return false;
    }
    const char *name = info && info->name ? info->name : export_default_name(s, defname);

    fputs("{\n  \"schema\": \"flipgraph-scheme/1\",\n  \"name\": ", out);
    json_str(out, name);
    fprintf(out, ",\n  \"format\": [%d, %d, %d],\n", s->fmt.n, s->fmt.m, s->fmt.p);
    fprintf(out, "  \"ring\": \"%s\",\n", s->ring == SCHEME_RING_Z ? "z" : "gf2");
    fprintf(out, "  \"rank\": %d,\n", s->rank);
    fprintf(out, "  \"hash\": \"%s\",\n", hex);
    fputs("  \"layout\": \"a[r][i*m+j], b[r][j*p+k], c[r][k*n+i]: "
          "sum_r a_r[i,j] b_r[j',k] c_r[k',i'] = [j=j'][k=k'][i=i'], "
          "c is the transposed product\",\n", out);
    for (int pos = 0; pos < 3; pos++) {
        write_position(s, pos, out);
        fputs(",\n", out);
    }
    fputs("  \"provenance\": ", out);
    if (info && info->db_path) {
        fputs("{\n    \"db\": ", out);
        json_str(out, info->db_path);
        fprintf(out, ",\n    \"id\": %" PRId64 ",\n    \"source\": ", info->db_id);
        json_str_or_null(out, info->source);
        fputs(",\n    \"found_at\": ", out);
        json_str_or_null(out, info->found_at);
        fputs(",\n    \"run_id\": ", out);
        json_id_or_null(out, info->run_id);
        fputs(",\n    \"parent_id\": ", out);
        json_id_or_null(out, info->parent_id);
        fputs(",\n    \"flips\": ", out);
        if (info->flips)
            fprintf(out, "%" PRIu64, info->flips);
        else
            fputs("null", out);
        fputs(",\n    \"seconds\": ", out);
        if (info->seconds > 0)
            fprintf(out, "%.17g", info->seconds);
        else
            fputs("null", out);
        fputs("\n  }", out);
    } else {
        fputs("null", out);
    }
    fputs("\n}\n", out);
    return !ferror(out);
}
