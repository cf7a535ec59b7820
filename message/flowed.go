package message

import "strings"

// unflow joins the soft line breaks of RFC 3676 format=flowed text: a line
// ending in a space continues on the next line of the same quote depth.
// Space-stuffing is removed and quoted paragraphs keep their ">" marks.
// With delsp=yes the trailing space of a soft break is deleted too.
func unflow(s string, delsp bool) string {
	var out []string
	var cur strings.Builder
	open, curDepth := false, 0
	for _, line := range strings.Split(s, "\n") {
		depth := len(line) - len(strings.TrimLeft(line, ">"))
		content := strings.TrimPrefix(line[depth:], " ")
		if open && depth != curDepth {
			out, open = append(out, cur.String()), false
		}
		if !open {
			cur.Reset()
			curDepth = depth
			if depth > 0 {
				cur.WriteString(strings.Repeat(">", depth) + " ")
			}
		}
		soft := strings.HasSuffix(content, " ") && content != "-- "
		if soft && delsp {
			content = content[:len(content)-1]
		}
		cur.WriteString(content)
		open = soft
		if !soft {
			out = append(out, cur.String())
		}
	}
	if open {
		out = append(out, cur.String())
	}
	return strings.Join(out, "\n")
}
