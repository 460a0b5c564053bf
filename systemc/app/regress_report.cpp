// Regression outputs: JUnit XML for CI and a markdown report for people.
#include <sstream>

#include "app/regress.h"

namespace relgpu::app::regress {

static std::string value_text(const json& v) { return v.is_null() ? "(missing)" : v.dump(); }

std::string mismatch_line(const Mismatch& m) {
  std::string s = m.key + ": expected ";
  s += m.expected.is_null() ? m.tolerance : m.expected.dump();
  s += ", got " + value_text(m.got);
  // "exact" says something only for numbers, where tolerances exist.
  std::string paren = m.expected.is_number() ? m.tolerance : "";
  if (!m.note.empty()) paren += (paren.empty() ? "" : "; ") + m.note;
  if (!paren.empty()) s += " (" + paren + ")";
  return s;
}

std::string shell_quote(const std::string& a) {
  if (!a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") ==
                        std::string::npos)
    return a;
  std::string q = "'";
  for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string reproduce(const Run& r, const std::string& exe_display) {
  std::string s = shell_quote(exe_display);
  for (auto& a : r.args()) s += " " + shell_quote(a);
  return s;
}

std::string xml_escape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size();
  for (size_t i = 0; i < n;) {
    unsigned char c = p[i];
    if (c < 0x80) {
      switch (c) {
        case '&': o += "&amp;"; break;
        case '<': o += "&lt;"; break;
        case '>': o += "&gt;"; break;
        case '"': o += "&quot;"; break;
        case '\'': o += "&apos;"; break;
        case '\t': case '\n': case '\r': o += char(c); break;
        default: o += c < 0x20 || c == 0x7f ? '?' : char(c);  // not allowed in XML 1.0
      }
      ++i;
      continue;
    }
    // Copy a well-formed UTF-8 sequence; anything else (a child's raw
    // bytes) becomes U+FFFD, so the document always parses.
    size_t len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    bool ok = len && i + len <= n;
    uint32_t cp = len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
    for (size_t k = 1; ok && k < len; ++k) {
      ok = (p[i + k] & 0xC0) == 0x80;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    if (ok) {
      static const uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
      ok = cp >= kMin[len] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF) && cp != 0xFFFE && cp != 0xFFFF;
    }
    if (ok) {
      o.append(s, i, len);
      i += len;
    } else {
      o += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return o;
}

static std::string seconds(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", s);
  return b;
}

static std::string failure_text(const Outcome& o, const ReportInfo& info) {
  std::string t;
  for (auto& m : o.result->mismatches) t += mismatch_line(m) + "\n";
  if (o.result->mismatches.empty() && !o.result->message.empty()) t += o.result->message + "\n";
  t += "reproduce: " + reproduce(*o.run, info.exe) + "\n";
  return t;
}

std::string junit_xml(const Suite& s, const std::vector<Outcome>& outcomes, const ReportInfo& info) {
  size_t failures = 0, errors = 0;
  for (auto& o : outcomes) {
    if (o.result->status == Status::fail) ++failures;
    else if (o.result->status != Status::pass) ++errors;
  }
  std::ostringstream x;
  auto attr = [](const std::string& v) { return "\"" + xml_escape(v) + "\""; };
  std::string counts = " tests=\"" + std::to_string(outcomes.size()) + "\" failures=\"" + std::to_string(failures) +
                       "\" errors=\"" + std::to_string(errors) + "\"";
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x << "<testsuites name=\"relgpu regress\"" << counts << " time=\"" << seconds(info.wall_s) << "\">\n";
  x << "  <testsuite name=" << attr(s.name) << counts << " skipped=\"0\" time=\"" << seconds(info.wall_s) << "\"";
  if (!info.timestamp.empty()) x << " timestamp=" << attr(info.timestamp);
  if (!info.hostname.empty()) x << " hostname=" << attr(info.hostname);
  x << ">\n";
  x << "    <properties>\n";
  x << "      <property name=\"suite_file\" value=" << attr(s.path) << "/>\n";
  x << "      <property name=\"binary\" value=" << attr(info.exe) << "/>\n";
  x << "      <property name=\"jobs\" value=\"" << info.jobs << "\"/>\n";
  x << "    </properties>\n";
  for (auto& o : outcomes) {
    const Result& r = *o.result;
    x << "    <testcase classname=" << attr(s.name) << " name=" << attr(o.run->name) << " time=\""
      << seconds(r.wall_s) << "\"";
    if (r.status == Status::pass) {
      x << "/>\n";
      continue;
    }
    x << ">\n";
    // JUnit: a failure is a wrong answer; an error is a run that did not
    // finish properly (timeout, crash, bad input, kernel error).
    const char* tag = r.status == Status::fail ? "failure" : "error";
    std::string type = r.status == Status::fail ? "mismatch" : status_name(r.status);
    for (auto& c : type) c = char(std::tolower(static_cast<unsigned char>(c)));
    x << "      <" << tag << " message=" << attr(r.message) << " type=" << attr(type) << ">"
      << xml_escape(failure_text(o, info)) << "</" << tag << ">\n";
    if (!r.log.empty()) x << "      <system-out>" << xml_escape(r.log) << "</system-out>\n";
    x << "    </testcase>\n";
  }
  x << "  </testsuite>\n</testsuites>\n";
  return x.str();
}

// A markdown table cell: no line breaks, '|' escaped.
static std::string cell(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '|') o += "\\|";
    else if (c == '\n' || c == '\r') o += ' ';
    else o += c;
  }
  return o;
}

std::string markdown_report(const Suite& s, const std::vector<Outcome>& outcomes, const ReportInfo& info) {
  size_t count[5] = {0, 0, 0, 0, 0};
  for (auto& o : outcomes) ++count[int(o.result->status)];
  std::ostringstream m;
  m << "# Regression suite `" << s.name << "`\n\n";
  if (!s.description.empty()) m << s.description << "\n\n";
  m << "- suite file: `" << s.path << "`\n";
  m << "- binary: `" << info.exe << "`\n";
  if (!info.timestamp.empty()) m << "- started: " << info.timestamp << (info.hostname.empty() ? "" : " on " + info.hostname) << "\n";
  m << "- " << outcomes.size() << " runs, " << info.jobs << " at a time, " << seconds(info.wall_s) << " s in all\n";
  m << "- **" << (count[0] == outcomes.size() ? "all passed" : std::to_string(outcomes.size() - count[0]) + " not passed")
    << "**: " << count[0] << " pass";
  const Status bad[] = {Status::fail, Status::error, Status::timeout, Status::crash};
  for (Status st : bad)
    if (count[int(st)]) m << ", " << count[int(st)] << " " << status_name(st);
  m << "\n\n";
  m << "| run | status | wall (s) | detail |\n|---|---|---:|---|\n";
  for (auto& o : outcomes) {
    const Result& r = *o.result;
    bool ok = r.status == Status::pass;
    m << "| " << cell(o.run->name) << " | " << (ok ? "" : "**") << status_name(r.status) << (ok ? "" : "**") << " | "
      << seconds(r.wall_s) << " | " << cell(r.message) << " |\n";
  }
  bool header = false;
  for (auto& o : outcomes) {
    const Result& r = *o.result;
    if (r.status == Status::pass) continue;
    if (!header) m << "\n## Not passed\n";
    header = true;
    m << "\n### " << o.run->name << ": " << status_name(r.status) << "\n\n";
    if (!r.mismatches.empty()) {
      m << "| key | expected | got | tolerance | note |\n|---|---:|---:|---|---|\n";
      for (auto& x : r.mismatches)
        m << "| `" << cell(x.key) << "` | " << cell(x.expected.is_null() ? "" : x.expected.dump()) << " | "
          << cell(value_text(x.got)) << " | " << cell(x.tolerance) << " | " << cell(x.note) << " |\n";
      m << "\n";
    } else {
      m << r.message << "\n\n";
    }
    m << "Reproduce:\n\n```sh\n" << reproduce(*o.run, info.exe) << "\n```\n";
    if (!r.log.empty()) m << "\nOutput:\n\n```\n" << r.log << (r.log.back() == '\n' ? "" : "\n") << "```\n";
  }
  return m.str();
}

}  // namespace relgpu::app::regress
