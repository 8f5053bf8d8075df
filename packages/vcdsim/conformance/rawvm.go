package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/vmware/go-vcloud-director/v2/govcd"
	types "github.com/vmware/go-vcloud-director/v2/types/v56"
)

const (
	nsOvf = "http://schemas.dmtf.org/ovf/envelope/1"
	nsVmw = "http://www.vmware.com/schema/ovf"
)

// xnode is an element read with its prefixes as written (RawToken), so that writing it back
// keeps the document's own namespace declarations and prefixes.
type xnode struct {
	name  xml.Name // Space holds the prefix
	attrs []xml.Attr
	kids  []any // *xnode or string (character data)
}

func parseRaw(doc []byte) (*xnode, error) {
	dec := xml.NewDecoder(bytes.NewReader(doc))
	var stack []*xnode
	var root *xnode
	for {
		tok, err := dec.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &xnode{name: t.Name, attrs: append([]xml.Attr(nil), t.Attr...)}
			if len(stack) > 0 {
				top := stack[len(stack)-1]
				top.kids = append(top.kids, n)
			} else {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				top := stack[len(stack)-1]
				top.kids = append(top.kids, string(t))
			}
		}
	}
	if root == nil {
		return nil, fmt.Errorf("no root element")
	}
	return root, nil
}

func qname(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

func (n *xnode) write(b *strings.Builder) {
	b.WriteString("<" + qname(n.name))
	for _, a := range n.attrs {
		b.WriteString(" " + qname(a.Name) + `="`)
		_ = xml.EscapeText(b, []byte(a.Value))
		b.WriteString(`"`)
	}
	b.WriteString(">")
	for _, k := range n.kids {
		if c, ok := k.(*xnode); ok {
			c.write(b)
		} else {
			_ = xml.EscapeText(b, []byte(k.(string)))
		}
	}
	b.WriteString("</" + qname(n.name) + ">")
}

// prefixFor finds the prefix a document binds to a namespace on the given elements.
func prefixFor(uri string, scope ...*xnode) string {
	for _, n := range scope {
		for _, a := range n.attrs {
			if a.Name.Space == "xmlns" && a.Value == uri {
				return a.Name.Local
			}
		}
	}
	return ""
}

func (n *xnode) child(local string) *xnode {
	for _, k := range n.kids {
		if c, ok := k.(*xnode); ok && c.name.Local == local {
			return c
		}
	}
	return nil
}

// withExtraConfig sets ExtraConfig keys in the Vm's VirtualHardwareSection, after its items.
func withExtraConfig(vm *xnode, keys map[string]string) error {
	hw := vm.child("VirtualHardwareSection")
	if hw == nil {
		return fmt.Errorf("the Vm has no VirtualHardwareSection")
	}
	vmw, ovf := prefixFor(nsVmw, hw, vm), prefixFor(nsOvf, hw, vm)
	if vmw == "" || ovf == "" {
		return fmt.Errorf("the Vm document binds no prefix to %s or %s", nsVmw, nsOvf)
	}
	var kept []any
	last := 0
	for _, k := range hw.kids {
		c, ok := k.(*xnode)
		if ok && c.name.Local == "ExtraConfig" {
			continue // replaced below, as a full reconfiguration restates the set
		}
		kept = append(kept, k)
		if ok && (c.name.Local == "Item" || c.name.Local == "System" || c.name.Local == "Info") {
			last = len(kept)
		}
	}
	var added []any
	for k, v := range keys {
		added = append(added, &xnode{
			name: xml.Name{Space: vmw, Local: "ExtraConfig"},
			attrs: []xml.Attr{
				{Name: xml.Name{Space: ovf, Local: "required"}, Value: "false"},
				{Name: xml.Name{Space: vmw, Local: "key"}, Value: k},
				{Name: xml.Name{Space: vmw, Local: "value"}, Value: v},
			},
		})
	}
	hw.kids = append(append(append([]any{}, kept[:last]...), added...), kept[last:]...)
	return nil
}

// send makes one request with the session's headers and answers the status and body.
func send(r *run, method, href, contentType, body string) (int, []byte, error) {
	c := &r.client.Client
	u, err := url.Parse(href)
	if err != nil {
		return 0, nil, err
	}
	var payload io.Reader
	if body != "" {
		payload = strings.NewReader(body)
	}
	req := c.NewRequest(nil, method, *u, payload)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.Http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, err
}

// reconfigureWithExtraConfig GETs the Vm, adds ExtraConfig, POSTs the whole document to
// reconfigureVm and waits for the task with the SDK.
func reconfigureWithExtraConfig(r *run, href string, keys map[string]string) error {
	status, body, err := send(r, http.MethodGet, href, "", "")
	if err != nil || status != http.StatusOK {
		return fmt.Errorf("GET %s: %d %s %v", href, status, body, err)
	}
	vm, err := parseRaw(body)
	if err != nil {
		return err
	}
	if err := withExtraConfig(vm, keys); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString(xml.Header)
	vm.write(&b)
	status, body, err = send(r, http.MethodPost, href+"/action/reconfigureVm", types.MimeVM, b.String())
	if err != nil || status != http.StatusAccepted {
		return fmt.Errorf("POST reconfigureVm: %d %s %v", status, body, err)
	}
	task := govcd.NewTask(&r.client.Client)
	if err := xml.Unmarshal(body, task.Task); err != nil {
		return err
	}
	return task.WaitTaskCompletion()
}
