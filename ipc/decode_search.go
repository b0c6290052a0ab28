package ipc

// decodeSearch decodes a search answer into out as json.Unmarshal would,
// without reflection: decoding the answer was a fifth of the CPU a search
// costs through the socket. It handles what the daemon sends and nothing
// more; ok is false for anything else (a field it does not know, explain,
// a null where the daemon never writes one, a \u escape of a surrogate,
// invalid UTF-8, a control character, malformed JSON), and the caller then
// decodes the answer with json.Unmarshal into a fresh value.
//
// A string without escapes shares b's bytes (no copy): b, the answer as
// read, must not change afterwards.
func decodeSearch(b []byte, out *SearchResponse) bool {
	d := &jdec{b: b}
	var keys keySet
	for more := d.begin('{', '}'); more; more = d.more('}') {
		key, ok := d.key(&keys)
		if !ok {
			return false
		}
		switch string(key) {
		case "query":
			ok = d.str(&out.Query)
		case "results":
			ok = d.results(&out.Results)
		case "took_ms":
			ok = d.float(&out.TookMS)
		case "embed_ms":
			ok = d.float(&out.EmbedMS)
		case "grounded":
			ok = d.boolean(&out.Grounded)
		case "suggestions":
			ok = d.strs(&out.Suggestions)
		case "degraded":
			ok = d.strs(&out.Degraded)
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
	d.ws()
	return d.err == nil && d.i == len(d.b)
}

func (d *jdec) results(rs *[]Result) bool {
	if d.null() {
		*rs = nil
		return true
	}
	*rs = make([]Result, 0, 10)
	for more := d.begin('[', ']'); more; more = d.more(']') {
		*rs = append(*rs, Result{})
		if !d.result(&(*rs)[len(*rs)-1]) {
			return false
		}
	}
	return d.err == nil
}

func (d *jdec) result(r *Result) bool {
	var keys keySet
	for more := d.begin('{', '}'); more; more = d.more('}') {
		key, ok := d.key(&keys)
		if !ok {
			return false
		}
		switch string(key) {
		case "id":
			ok = d.str(&r.ID)
		case "vault":
			ok = d.str(&r.Vault)
		case "path":
			ok = d.str(&r.Path)
		case "abs_path":
			ok = d.str(&r.AbsPath)
		case "title":
			ok = d.str(&r.Title)
		case "line_start":
			ok = d.whole(&r.LineStart)
		case "line_end":
			ok = d.whole(&r.LineEnd)
		case "heading":
			ok = d.str(&r.Heading)
		case "headings":
			ok = d.strs(&r.Headings)
		case "score":
			ok = d.float(&r.Score)
		case "text":
			ok = d.str(&r.Text)
		case "page":
			ok = d.whole(&r.Page)
		case "stale":
			ok = d.boolean(&r.Stale)
		case "parent":
			ok = d.parent(&r.Parent)
		case "snippet":
			ok = d.snippet(&r.Snippet)
		case "matches":
			ok = d.spans(&r.Matches)
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
	return d.err == nil
}

func (d *jdec) parent(pp **Parent) bool {
	if d.null() {
		*pp = nil
		return true
	}
	p := &Parent{}
	*pp = p
	var keys keySet
	for more := d.begin('{', '}'); more; more = d.more('}') {
		key, ok := d.key(&keys)
		if !ok {
			return false
		}
		switch string(key) {
		case "line_start":
			ok = d.whole(&p.LineStart)
		case "line_end":
			ok = d.whole(&p.LineEnd)
		case "heading":
			ok = d.str(&p.Heading)
		case "text":
			ok = d.str(&p.Text)
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
	return d.err == nil
}

func (d *jdec) snippet(sp **Snippet) bool {
	if d.null() {
		*sp = nil
		return true
	}
	s := &Snippet{}
	*sp = s
	var keys keySet
	for more := d.begin('{', '}'); more; more = d.more('}') {
		key, ok := d.key(&keys)
		if !ok {
			return false
		}
		switch string(key) {
		case "text":
			ok = d.str(&s.Text)
		case "line_start":
			ok = d.whole(&s.LineStart)
		case "line_end":
			ok = d.whole(&s.LineEnd)
		case "matches":
			ok = d.spans(&s.Matches)
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
	return d.err == nil
}
