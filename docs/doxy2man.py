#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""One section-3 manual page per function, from the public headers' Doxygen.

    doxy2man.py --xml DIR --map src/librfm.map --out DIR --version X.Y.Z

Reads Doxygen's XML output of include/rfm/ (make doc writes it to
doc/xml) and writes NAME.3 for every documented function, in liburing's
shape: NAME, SYNOPSIS, DESCRIPTION (with the arguments), RETURN VALUE,
ERRORS (one entry per @retval), THREAD SAFETY, VERSIONS, SEE ALSO. The
header is the one source: nothing here knows a function by name. The
list of functions comes from the XML, and the symbol map says which are
exported and in which version node.

Before writing anything it checks what a public function's comment must
carry (docs/architecture.md, "Documenting a public function") and fails,
naming each problem with its header and line:
  - every symbol of the map's public version nodes is a documented function;
  - every function has a brief; a function returning int has a @retval
    per error code, each naming 0 or an enumerator of enum rfm_error;
  - its thread-safety is said, by a "@par Thread safety" of its own or
    of its group;
  - a parameter that receives a new object (T ** of an rfm_ type) names
    the function that frees it, and so does a @return of a new object.
(Doxygen itself, with WARN_NO_PARAMDOC and WARN_AS_ERROR, fails on a
missing @param or @return.)

Python's standard library only (xml.etree), as Debian's python3 has it.
"""
import argparse
import os
import re
import sys
import xml.etree.ElementTree as ET

THREAD_TITLE = "thread safety"
OPAQUE_OUT = re.compile(r"^(?:const\s+)?(?:struct\s+)?rfm_\w+\s*\*\s*\*$")
DESTRUCTOR = re.compile(r"\brfm(?:_\w+)?_(?:close|free)\b")
ESCAPES = {
    "\u2014": r"\(em", "\u2013": r"\(en", "\u00b5": r"\(mc", "\u201c": r"\(lq",
    "\u201d": r"\(rq", "\u2018": r"\(oq", "\u2019": r"\(cq", "\u2192": r"\(->",
    "\u2264": r"\(<=", "\u2265": r"\(>=", "\u00d7": r"\(mu", "\u00b1": r"\(+-",
    "\u2026": "...", "\u00a0": r"\~",
}


def text_of(elem):
    return "".join(elem.itertext()) if elem is not None else ""


def esc(text, code=False):
    """Escape text for roff (not at the start of a line: see lines())."""
    text = text.replace("\\", r"\e")
    if code:
        text = text.replace("-", r"\-")
    out = []
    for ch in text:
        if ch in ESCAPES:
            out.append(ESCAPES[ch])
        elif ord(ch) > 126:
            out.append(r"\[u%04X]" % ord(ch))
        else:
            out.append(ch)
    return "".join(out)


class Renderer:
    """Doxygen description XML to man(7) requests, for one function."""

    def __init__(self, params):
        self.params = set(params)

    def inline(self, elem):
        """The inline content of @elem (text and children) as roff text."""
        parts = [esc(elem.text or "")]
        for child in elem:
            parts.append(self.inline_child(child))
            parts.append(esc(child.tail or ""))
        return "".join(parts)

    def inline_child(self, child):
        tag = child.tag
        if tag == "computeroutput":
            word = text_of(child)
            font = "I" if word in self.params else "B"
            return r"\f%s%s\fP" % (font, esc(word, code=True))
        if tag == "ref":
            word = text_of(child)
            if child.get("kindref") == "member":  # a function, macro, type or value
                name = word[:-2] if word.endswith("()") else word
                return r"\fB%s\fP%s" % (esc(name), "()" if word.endswith("()") else "")
            return esc(word)
        if tag in ("emphasis",):
            return r"\fI%s\fP" % self.inline(child)
        if tag in ("bold",):
            return r"\fB%s\fP" % self.inline(child)
        if tag == "ulink":
            return "%s <%s>" % (self.inline(child), esc(child.get("url", "")))
        if tag == "linebreak":
            return "\n.br\n"
        if tag == "ndash":
            return r"\(en"
        if tag == "mdash":
            return r"\(em"
        if tag == "nonbreakablespace":
            return r"\~"
        if tag in ("anchor", "parameterlist", "simplesect"):
            return ""  # sections are rendered apart; anchors show nothing
        if tag in ("itemizedlist", "orderedlist", "programlisting", "table"):
            return "\n" + "\n".join(self.block(child)) + "\n"
        return self.inline(child)

    def block(self, elem):
        """Lines of roff for a block element (para, list, code, table)."""
        tag = elem.tag
        if tag == "para":
            body = self.inline(elem).strip()
            return [".PP"] + lines(body) if body else []
        if tag in ("itemizedlist", "orderedlist"):
            out = []
            for n, item in enumerate(elem.findall("listitem"), 1):
                mark = r"\(bu" if tag == "itemizedlist" else "%d." % n
                out.append(".IP %s 3" % mark)
                first = True
                for p in item:
                    body = lines(self.inline(p).strip()) if p.tag == "para" else self.block(p)
                    if not first and p.tag == "para":
                        out.append(".IP")
                    out.extend(body)
                    first = False
            out.append(".PP")
            return out
        if tag == "programlisting":
            out = [".PP", ".in +4n", ".EX"]
            for line in elem.findall("codeline"):
                out.append(code_line(line))
            out += [".EE", ".in"]
            return out
        if tag == "table":
            out = []
            for row in elem.findall("row"):
                cells = [self.inline(e).strip() for e in row.findall("entry")]
                out.append(".IP \\(bu 3")
                out.extend(lines(" \\(em ".join(c for c in cells if c)))
            out.append(".PP")
            return out
        return lines(self.inline(elem).strip())


def code_line(line):
    parts = []
    for node in line.iter():
        if node is line:
            parts.append(node.text or "")
            continue
        if node.tag == "sp":
            parts.append(" ")
        else:
            parts.append(node.text or "")
        parts.append(node.tail or "")
    text = esc("".join(parts), code=True)
    return "\\&" + text if text.startswith((".", "'")) else text


def lines(body):
    """Split roff text into lines: the requests this script wrote stay
    requests, a text line that begins with '.' or a quote is escaped, and
    code between .EX and .EE keeps its indentation."""
    out, code = [], False
    for raw in body.split("\n"):
        if code and raw != ".EE":
            out.append(raw)
            continue
        raw = raw.strip()
        if not raw:
            continue
        if re.match(r"^\.(br|PP|IP|EX|EE|in)\b", raw):
            code = raw == ".EX" or (code and raw != ".EE")
        elif raw.startswith((".", "'")):
            raw = "\\&" + raw
        out.append(raw)
    return out


class Function:
    def __init__(self, member, group):
        self.group = group
        self.name = text_of(member.find("name"))
        self.type = " ".join(text_of(member.find("type")).split())
        self.params = []
        for p in member.findall("param"):
            ptype = " ".join(text_of(p.find("type")).split())
            pname = text_of(p.find("declname"))
            self.params.append((ptype, pname))
        loc = member.find("location")
        self.file = loc.get("declfile") or loc.get("file")
        self.line = loc.get("declline") or loc.get("line")
        self.inline = member.get("inline") == "yes" or member.get("static") == "yes"
        self.brief = member.find("briefdescription")
        self.siblings = []  # the functions of its member group (@name)
        self.detail = member.find("detaileddescription")

    def where(self):
        return "include/%s:%s" % (self.file, self.line)

    def sections(self):
        """The detailed description split into its parts."""
        parts = {"body": [], "params": [], "retvals": [], "return": None, "see": [],
                 "since": [], "note": [], "thread": None}
        for para in self.detail:
            # A para may mix text with sections: the text stays in the body.
            keep = ET.Element(para.tag)
            keep.text = para.text
            for child in para:
                if child.tag == "parameterlist":
                    kind = child.get("kind")
                    for item in child.findall("parameteritem"):
                        names = [text_of(n) for n in item.iter("parametername")]
                        desc = item.find("parameterdescription")
                        if kind == "retval":
                            parts["retvals"].append((names, desc))
                        else:
                            parts["params"].append((names, desc))
                    tail_holder(keep, child.tail)
                elif child.tag == "simplesect":
                    kind = child.get("kind")
                    title = text_of(child.find("title")).strip().lower()
                    if kind == "return":
                        parts["return"] = child
                    elif kind == "see":
                        parts["see"].append(child)
                    elif kind == "since":
                        parts["since"].append(child)
                    elif kind == "par" and title == THREAD_TITLE:
                        parts["thread"] = child
                    else:
                        parts["note"].append(child)
                    tail_holder(keep, child.tail)
                else:
                    keep.append(child)
            parts["body"].append(keep)
        return parts


def tail_holder(elem, tail):
    """Append text that followed a removed child to @elem's content."""
    if not tail:
        return
    if len(elem):
        elem[-1].tail = (elem[-1].tail or "") + tail
    else:
        elem.text = (elem.text or "") + tail


def load(xml_dir):
    """Functions by name, groups' thread-safety and see-also, error codes."""
    functions, groups, errors, siblings = {}, {}, set(), {}
    index = ET.parse(os.path.join(xml_dir, "index.xml")).getroot()
    for compound in index.findall("compound"):
        if compound.get("kind") not in ("group", "file"):
            continue
        root = ET.parse(os.path.join(xml_dir, compound.get("refid") + ".xml")).getroot()
        cdef = root.find("compounddef")
        gname = text_of(cdef.find("compoundname")) if compound.get("kind") == "group" else None
        if gname:
            thread, see = None, []
            for sect in cdef.find("detaileddescription").iter("simplesect"):
                title = text_of(sect.find("title")).strip().lower()
                if sect.get("kind") == "par" and title == THREAD_TITLE:
                    thread = sect
                elif sect.get("kind") == "see":
                    see.append(sect)
            groups[gname] = {"thread": thread, "see": see}
        for section in cdef.findall("sectiondef"):
            if gname and section.get("kind") == "user-defined":
                names = [text_of(m.find("name")) for m in section.findall("memberdef")
                         if m.get("kind") == "function"]
                for n in names:
                    siblings[n] = names
        for member in cdef.iter("memberdef"):
            kind = member.get("kind")
            if kind == "enum" and text_of(member.find("name")) == "rfm_error":
                for v in member.findall("enumvalue"):
                    errors.add(text_of(v.find("name")))
            if kind != "function":
                continue
            name = text_of(member.find("name"))
            if name in functions and functions[name].group:
                continue
            functions[name] = Function(member, gname)
    for name, names in siblings.items():
        if name in functions:
            functions[name].siblings = names
    return functions, groups, errors


def map_symbols(path):
    """Exported symbols of the public version nodes, with their node."""
    symbols, node = {}, None
    with open(path, encoding="utf-8") as f:
        text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
    for line in text.splitlines():
        m = re.match(r"^\s*(RFM_[A-Z0-9_.]+)\s*\{", line)
        if m:
            node = m.group(1)
            continue
        m = re.match(r"^\s*([A-Za-z_]\w*)\s*;", line)
        if m and node and node != "RFM_PRIVATE" and not m.group(1).startswith("rfm__"):
            symbols[m.group(1)] = node
    return symbols


def check(functions, groups, errors, symbols):
    problems = []
    for sym in sorted(symbols):
        if sym not in functions:
            problems.append("src/librfm.map: %s is exported but no header documents it "
                            "as a function" % sym)
    for f in sorted(functions.values(), key=lambda f: (f.file, int(f.line))):
        parts = f.sections()
        say = lambda what: problems.append("%s: %s: %s" % (f.where(), f.name, what))
        if not text_of(f.brief).strip():
            say("no @brief")
        if f.type == "int":
            if not parts["retvals"]:
                say("returns int but has no @retval: one per error code it returns")
        for names, _ in parts["retvals"]:
            for n in names:
                if n != "0" and n not in errors:
                    say("@retval %s is neither 0 nor an enumerator of enum rfm_error" % n)
        if parts["thread"] is None and (f.group is None or groups[f.group]["thread"] is None):
            say('no "@par Thread safety" of its own or of its group')
        for (ptype, pname) in f.params:
            if OPAQUE_OUT.match(ptype):
                desc = next((text_of(d) for names, d in parts["params"] if pname in names), "")
                if not DESTRUCTOR.search(desc):
                    say("@param %s receives a new object: name the function that frees it"
                        % pname)
        if re.match(r"^(?:struct\s+)?rfm_\w+\s*\*$", f.type):
            if not DESTRUCTOR.search(text_of(parts["return"])):
                say("@return gives a new object: name the function that frees it")
    return problems


def synopsis(f):
    """The prototype as .BI lines: types bold, argument names italic,
    wrapped under the first argument at about 72 columns."""
    head = f.type + ("" if f.type.endswith("*") else " ") + f.name + "("
    args = [(t + ("" if t.endswith("*") else " "), n) for t, n in f.params if n]
    if not args:
        return ['.B "%s"' % esc(head + "void);", code=True)]
    rows, row, width = [], [], len(head)
    for i, (ptype, pname) in enumerate(args):
        sep = ", " if i < len(args) - 1 else ");"
        need = len(ptype) + len(pname) + len(sep)
        if row and width + need > 72:
            rows.append(row)
            row, width = [], len(head)
        row.append((ptype, pname, sep))
        width += need
    rows.append(row)
    out = []
    for n, row in enumerate(rows):
        bold = head if n == 0 else " " * len(head)
        words = []
        for ptype, pname, sep in row:
            words.append('"%s"' % esc(bold + ptype, code=True))
            words.append(esc(pname))
            bold = sep
        words.append('"%s"' % esc(bold.rstrip(), code=True))
        out.append(".BI " + " ".join(words))
    return out


def see_also(f, parts, groups, functions):
    seen, refs = {f.name}, []

    def add(name, section):
        if name not in seen:
            seen.add(name)
            refs.append((name, section))

    for sect in parts["see"]:
        for r in sect.iter("ref"):
            add(text_of(r).rstrip("()"), 3)
        for name, sec in re.findall(r"([A-Za-z][\w.-]*)\((\d)\)", text_of(sect)):
            add(name, int(sec))
    for node in f.detail.iter("ref"):
        word = text_of(node).rstrip("()")
        if node.get("kindref") == "member" and word in functions:
            add(word, 3)
    for node in f.brief.iter("ref"):
        word = text_of(node).rstrip("()")
        if node.get("kindref") == "member" and word in functions:
            add(word, 3)
    # The functions of its member group, where that is a short list (a
    # typed family's siblings are named by its text instead).
    if len(f.siblings) <= 8:
        for name in f.siblings:
            add(name, 3)
    if f.group:
        for sect in groups[f.group]["see"]:
            for name, sec in re.findall(r"([A-Za-z][\w.-]*)\((\d)\)", text_of(sect)):
                add(name, int(sec))
    return refs


def page(f, groups, functions, symbols, version):
    r = Renderer([p for _, p in f.params])
    parts = f.sections()
    brief = " ".join(r.inline(f.brief.find("para")).split()) if f.brief.find("para") is not None else ""
    brief_plain = " ".join(text_of(f.brief).split()).rstrip(".")
    first = brief_plain.split(" ", 1)[0]
    if not (len(first) > 1 and first.isupper()):  # keep CLOCK_MONOTONIC, RFM2g...
        brief_plain = brief_plain[:1].lower() + brief_plain[1:]  # NAME lines are lower case
    out = [
        '.\\" SPDX-License-Identifier: LGPL-2.1-or-later',
        '.\\" Generated by docs/doxy2man.py from include/%s: edit the header, not this page.'
        % f.file,
        '.TH %s 3 "" "librfm %s" "librfm Manual"' % (f.name, version),
        ".SH NAME",
        "%s \\- %s" % (f.name, esc(brief_plain)),
        ".SH SYNOPSIS",
        ".nf",
        ".B #include <%s>" % f.file,
        ".PP",
    ]
    out += synopsis(f)
    out += [".fi", ".PP", "Link with \\fI\\-lrfm\\fP (\\fBpkg\\-config \\-\\-libs rfm\\fP).",
            ".SH DESCRIPTION"]
    out += [".PP"] + lines(brief)
    for para in parts["body"]:
        out += r.block(para)
    if parts["params"]:
        out += [".PP", "The arguments:"]
        for names, desc in parts["params"]:
            out.append(".TP")
            out.append(", ".join("\\fI%s\\fP" % esc(n) for n in names))
            out += para_lines(r, desc)
    for sect in parts["note"]:
        title = text_of(sect.find("title")).strip()
        out += [".PP"] + (["\\fB%s\\fP" % esc(title)] if title else [])
        for p in sect.findall("para"):
            out += para_lines(r, p)
    if parts["return"] is not None:
        out += [".SH RETURN VALUE"]
        for p in parts["return"].findall("para"):
            out += [".PP"] + lines(r.inline(p).strip())
    if parts["retvals"]:
        out += [".SH ERRORS"]
        if f.type == "int":
            out += [".PP", "Each code is also named by \\fBrfm_strerror\\fP(3); "
                    "\\fBrfm_last_error\\fP(3) has the details of the failure."]
        for names, desc in parts["retvals"]:
            out.append(".TP")
            out.append(", ".join("\\fB%s\\fP" % esc(n) for n in names))
            out += para_lines(r, desc)
    thread = parts["thread"] if parts["thread"] is not None else \
        (groups[f.group]["thread"] if f.group else None)
    out += [".SH THREAD SAFETY"]
    for p in thread.findall("para"):
        out += [".PP"] + lines(r.inline(p).strip())
    out += [".SH VERSIONS", ".PP"]
    if f.name in symbols and f.inline:
        out.append("An inline function of \\fI<%s>\\fP; librfm exports it too, as "
                   "\\fB%s@%s\\fP, for FFI users and bindings."
                   % (f.file, esc(f.name), symbols[f.name]))
    elif f.name in symbols:
        out.append("Exported by librfm as \\fB%s@%s\\fP." % (esc(f.name), symbols[f.name]))
    else:
        out.append("A static inline function of \\fI<%s>\\fP, not a symbol of the library."
                   % f.file)
    for sect in parts["since"]:
        out.append("Since: " + " ".join(r.inline(p).strip() for p in sect.findall("para")) + ".")
    refs = see_also(f, parts, groups, functions)
    if refs:
        out += [".SH SEE ALSO"]
        for i, (name, sec) in enumerate(refs):
            out.append(".BR %s (%d)%s" % (esc(name), sec, "," if i < len(refs) - 1 else ""))
    return "\n".join(out) + "\n"


def para_lines(r, desc):
    out = []
    first = True
    for p in (desc.findall("para") if desc is not None else []):
        if not first:
            out.append(".IP")
        out += lines(r.inline(p).strip())
        first = False
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--xml", required=True, help="Doxygen's XML output directory")
    ap.add_argument("--map", required=True, help="the linker version script")
    ap.add_argument("--out", required=True, help="where NAME.3 pages go")
    ap.add_argument("--version", required=True, help="the library's version")
    args = ap.parse_args()

    functions, groups, errors = load(args.xml)
    symbols = map_symbols(args.map)
    problems = check(functions, groups, errors, symbols)
    if problems:
        for p in problems:
            print(p, file=sys.stderr)
        print("doxy2man: %d problem(s) in the public headers' documentation "
              "(docs/architecture.md, \"Documenting a public function\")" % len(problems),
              file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    for f in functions.values():
        path = os.path.join(args.out, f.name + ".3")
        with open(path, "w", encoding="utf-8") as out:
            out.write(page(f, groups, functions, symbols, args.version))
    print("doxy2man: %d function pages in %s" % (len(functions), args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
