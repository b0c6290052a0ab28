;;; ragd.el --- Search your notes through a local ragd daemon -*- lexical-binding: t; -*-

;; Author: The ragd authors
;; Maintainer: The ragd authors
;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1"))
;; Keywords: convenience, matching, files
;; URL: https://github.com/ragd/ragd

;; This file is not part of GNU Emacs.

;;; Commentary:

;; ragd is a local retrieval daemon for Markdown note vaults.  It answers
;; HTTP/1.1 with JSON bodies on a Unix socket (see docs/protocol.md in the
;; ragd repository).  This package talks to that socket directly:
;;
;; - `ragd-search' asks for a query, offers the cited passages with
;;   `completing-read', the words that matched in face `ragd-match',
;;   and visits the chosen file at the cited line.
;; - `ragd-similar' offers the notes related to the current file.
;; - `ragd-insert-context' inserts a <retrieved-context> block of cited
;;   text at point, ready for a prompt.
;; - `ragd-xref-mode' (or adding `ragd-xref-backend' to
;;   `xref-backend-functions') makes \\[xref-find-apropos] and
;;   \\[xref-find-definitions] search the notes.
;; - `ragd-status' shows the daemon's state; `ragd-status-string' sums it
;;   up for a mode line ("ragd: embedding 22000" while chunks wait for
;;   their vectors, "ragd: idle" only when nothing is left).
;;
;; The socket is `ragd-socket' when set, else $RAGD_SOCKET, else ragd's
;; default path.  Requests are synchronous and give up after
;; `ragd-timeout' seconds.

;;; Code:

(require 'cl-lib)
(require 'json)
(require 'subr-x)
(require 'xref)

(defgroup ragd nil
  "Search notes indexed by a local ragd daemon."
  :group 'tools
  :prefix "ragd-")

(defcustom ragd-socket nil
  "Path of ragd's Unix socket.
When nil, use $RAGD_SOCKET, then $XDG_RUNTIME_DIR/ragd/ragd.sock, then
/tmp/ragd-UID/ragd.sock."
  :type '(choice (const :tag "Default" nil) file))

(defcustom ragd-timeout 10
  "Seconds to wait for ragd to answer a request."
  :type 'number)

(defcustom ragd-k 20
  "Number of results to ask for in searches and related-note lists."
  :type 'integer)

(defcustom ragd-context-budget nil
  "Most characters of text a context block may hold; nil for ragd's default."
  :type '(choice (const :tag "Default" nil) integer))

(defcustom ragd-context-style nil
  "Style of context blocks: \"snippets\", \"summary\", or nil for the default."
  :type '(choice (const :tag "Default" nil)
                 (const "snippets")
                 (const "summary")))

(defcustom ragd-snippet-width 100
  "Characters of passage shown for each search result."
  :type 'integer)

(defface ragd-match '((t :inherit match))
  "Face of the words that matched the query in search results.")

(defconst ragd-protocol-version 1
  "Version of the ragd protocol this package speaks.")

(define-error 'ragd-error "ragd")

(defvar ragd-search-history nil
  "Minibuffer history of `ragd-search' and `ragd-insert-context'.")

;;;; Socket and HTTP

(defun ragd-socket-path ()
  "Return the path of the socket to connect to."
  (let ((env (getenv "RAGD_SOCKET"))
        (xdg (getenv "XDG_RUNTIME_DIR")))
    (cond
     ((and ragd-socket (not (string-empty-p ragd-socket)))
      (expand-file-name ragd-socket))
     ((and env (not (string-empty-p env))) env)
     ((and xdg (file-name-absolute-p xdg))
      (concat (file-name-as-directory xdg) "ragd/ragd.sock"))
     (t (format "/tmp/ragd-%d/ragd.sock" (user-uid))))))

(defun ragd--check-socket (socket &optional uid)
  "Return why SOCKET is unsafe to talk to, or nil when it is safe.
A socket another user could control is refused, as ragctl does: its
directory must belong to UID (default: the user) and be writable by
nobody else, and the socket itself must be UID's.  A missing socket is
not refused here (connecting then says ragd is not running).  Emacs
cannot read the listener's peer credentials; the directory check is
what keeps others from replacing the socket."
  (let* ((uid (or uid (user-uid)))
         (dir (directory-file-name (file-name-directory (expand-file-name socket))))
         (refuse (lambda (path why)
                   (format "refusing socket %s: %s; another user could impersonate ragd there"
                           path why)))
         (dattrs (file-attributes (file-truename dir) 'integer))
         (sattrs (file-attributes (file-truename socket) 'integer)))
    (cond
     ((and dattrs (not (eq (file-attribute-type dattrs) t)))
      (funcall refuse dir "the socket's directory is not a directory"))
     ((and dattrs (/= (file-attribute-user-id dattrs) uid))
      (funcall refuse dir (format "the socket's directory belongs to uid %d, not to you (uid %d)"
                                  (file-attribute-user-id dattrs) uid)))
     ((and dattrs (let ((modes (file-attribute-modes dattrs)))
                    (or (eq (aref modes 5) ?w) (eq (aref modes 8) ?w))))
      (funcall refuse dir "the socket's directory is writable by others"))
     ((and sattrs (not (eq (aref (file-attribute-modes sattrs) 0) ?s)))
      (funcall refuse socket "it is not a socket"))
     ((and sattrs (/= (file-attribute-user-id sattrs) uid))
      (funcall refuse socket (format "it belongs to uid %d, not to you (uid %d)"
                                     (file-attribute-user-id sattrs) uid))))))

(defun ragd--encode-json (object)
  "Return OBJECT, an alist, as a UTF-8 encoded JSON string.
Entries whose value is nil are left out."
  (encode-coding-string
   (json-encode (cl-remove-if (lambda (cell) (null (cdr cell))) object))
   'utf-8 t))

(defun ragd--decode-json (string)
  "Parse the JSON STRING into alists and lists; null and false become nil."
  (if (and (fboundp 'json-parse-string)
           (or (not (fboundp 'json-available-p)) (json-available-p)))
      (json-parse-string string :object-type 'alist :array-type 'list
                         :null-object nil :false-object nil)
    (let ((json-object-type 'alist)
          (json-array-type 'list)
          (json-key-type 'symbol)
          (json-null nil)
          (json-false nil))
      (json-read-from-string string))))

(defun ragd--build-request (method path &optional body)
  "Return the bytes of an HTTP request METHOD PATH with the bytes BODY."
  (concat method " " path " HTTP/1.1\r\n"
          "Host: ragd\r\n"
          "User-Agent: ragd.el\r\n"
          "Accept: application/json\r\n"
          (format "Ragd-Protocol-Version: %d\r\n" ragd-protocol-version)
          "Connection: close\r\n"
          (if (or body (equal method "POST"))
              (format "Content-Type: application/json\r\nContent-Length: %d\r\n"
                      (length (or body "")))
            "")
          "\r\n"
          (or body "")))

(defun ragd--dechunk (data)
  "Decode the chunked body DATA; nil when it is not complete yet."
  (let ((pos 0) (out nil) (done nil) (incomplete nil))
    (while (not (or done incomplete))
      (let ((eol (string-search "\r\n" data pos)))
        (if (not eol)
            (setq incomplete t)
          (let ((size (string-to-number
                       (car (split-string (substring data pos eol) ";")) 16)))
            (cond
             ((zerop size) (setq done t))
             ((< (length data) (+ eol 2 size 2)) (setq incomplete t))
             (t (push (substring data (+ eol 2) (+ eol 2 size)) out)
                (setq pos (+ eol 2 size 2))))))))
    (and done (apply #'concat (nreverse out)))))

(defun ragd--parse-response (data eof)
  "Parse the bytes DATA received so far.
Return (STATUS HEADERS BODY) once the answer is complete, nil while more
is needed.  EOF non-nil says the peer closed the connection: then an
incomplete answer signals `ragd-error'."
  (let ((head-end (string-search "\r\n\r\n" data)))
    (if (not head-end)
        (when eof
          (signal 'ragd-error (list "Connection closed before a complete answer")))
      (let* ((lines (split-string (substring data 0 head-end) "\r\n"))
             (status (and (string-match "\\`HTTP/[0-9.]+ \\([0-9]+\\)" (car lines))
                          (string-to-number (match-string 1 (car lines)))))
             (headers (mapcar (lambda (line)
                                (when (string-match "\\`\\([^:]+\\):[ \t]*\\(.*\\)\\'" line)
                                  (cons (downcase (match-string 1 line))
                                        (match-string 2 line))))
                              (cdr lines)))
             (rest (substring data (+ head-end 4)))
             (te (cdr (assoc "transfer-encoding" headers)))
             (cl (cdr (assoc "content-length" headers))))
        (unless status
          (signal 'ragd-error (list (format "Not an HTTP answer: %S" (car lines)))))
        (cond
         ((and te (string-match-p "chunked" (downcase te)))
          (let ((body (ragd--dechunk rest)))
            (cond (body (list status headers body))
                  (eof (signal 'ragd-error (list "Connection closed inside a chunked body"))))))
         (cl
          (let ((n (string-to-number cl)))
            (cond ((>= (length rest) n) (list status headers (substring rest 0 n)))
                  (eof (signal 'ragd-error
                               (list (format "Connection closed after %d of %d body bytes"
                                             (length rest) n)))))))
         (eof (list status headers rest)))))))

(defun ragd-request (method path &optional body)
  "Send METHOD PATH to ragd with the alist BODY as JSON; return the answer.
The answer is decoded into alists.  An error answer signals `ragd-error'
with the daemon's message and the HTTP status as data."
  (let* ((socket (ragd-socket-path))
         (unsafe (ragd--check-socket socket))
         (buf (and (not unsafe) (generate-new-buffer " *ragd-http*" t)))
         (payload (and body (ragd--encode-json body)))
         (proc nil))
    (when unsafe
      (signal 'ragd-error (list unsafe)))
    (unwind-protect
        (progn
          (with-current-buffer buf (set-buffer-multibyte nil))
          (setq proc
                (condition-case err
                    (make-network-process :name "ragd" :buffer buf :family 'local
                                          :service socket :coding 'binary
                                          :noquery t :sentinel #'ignore)
                  (file-missing
                   (signal 'ragd-error
                           (list (format "ragd is not running (no socket at %s)" socket))))
                  (file-error
                   (signal 'ragd-error
                           (list (format "ragd is not running (nothing answers on %s: %s)"
                                         socket (error-message-string err)))))))
          (process-send-string proc (ragd--build-request method path payload))
          (let ((deadline (+ (float-time) ragd-timeout))
                (resp nil))
            (while (not resp)
              (let ((eof (not (process-live-p proc))))
                (setq resp (ragd--parse-response
                            (with-current-buffer buf (buffer-string)) eof))
                (unless resp
                  (when (> (float-time) deadline)
                    (signal 'ragd-error
                            (list (format "ragd did not answer %s %s within %s s"
                                          method path ragd-timeout))))
                  (accept-process-output proc 0.05))))
            (ragd--answer resp)))
      (when (and proc (process-live-p proc))
        (delete-process proc))
      (kill-buffer buf))))

(defun ragd--answer (resp)
  "Decode RESP, a parsed HTTP answer, or signal its error."
  (let* ((status (nth 0 resp))
         (text (decode-coding-string (nth 2 resp) 'utf-8))
         (data (ignore-errors (ragd--decode-json text))))
    (when (>= status 400)
      (signal 'ragd-error
              (list (format "ragd: %s (HTTP %d)"
                            (or (and (consp data) (alist-get 'error data))
                                (string-trim text))
                            status)
                    status)))
    (unless (or data (string-blank-p text) (equal (string-trim text) "{}"))
      (signal 'ragd-error (list "ragd sent invalid JSON")))
    data))

;;;; Results

(defun ragd--char-offset (bytes offset)
  "Return the character offset of the byte OFFSET in the UTF-8 string BYTES."
  (length (decode-coding-string (substring bytes 0 offset) 'utf-8)))

(defun ragd--highlight (text matches)
  "Return a copy of TEXT with the byte ranges MATCHES in face `ragd-match'.
MATCHES is a list of (START END) byte offsets in TEXT's UTF-8 encoding,
as ragd sends them."
  (let ((bytes (encode-coding-string text 'utf-8 t))
        (out (copy-sequence text)))
    (dolist (m matches out)
      (let ((from (car m)) (to (cadr m)))
        (when (and (integerp from) (integerp to) (<= 0 from) (< from to) (<= to (length bytes)))
          (add-face-text-property (ragd--char-offset bytes from) (ragd--char-offset bytes to)
                                  'ragd-match nil out))))))

(defun ragd--preview (r &optional width)
  "Return the one-line passage shown for the search result R.
It is R's snippet (else its text), the words that matched in face
`ragd-match', at most WIDTH characters (default `ragd-snippet-width')."
  (let-alist r
    (let* ((text (ragd--highlight (or .snippet.text .text "")
                                  (if .snippet.text .snippet.matches .matches)))
           (line (string-trim-left (subst-char-in-string ?\n ?\s (subst-char-in-string ?\t ?\s text t) t))))
      (truncate-string-to-width line (or width ragd-snippet-width) nil nil "…"))))

(defun ragd--result-label (r)
  "Return the label of the search result R."
  (let-alist r
    (format "%s:%d%s  %s  %s"
            .path .line_start
            (if (and .line_end (/= .line_end .line_start)) (format "-%d" .line_end) "")
            (if (and .heading (not (string-empty-p .heading))) .heading (or .title ""))
            (ragd--preview r))))

(defun ragd--heading-after-title (heading title)
  "Return HEADING without its leading TITLE (and \" > \"), \"\" if nothing is left."
  (let ((h (or heading "")) (title (or title "")))
    (cond ((string-empty-p title) h)
          ((equal h title) "")
          ((string-prefix-p (concat title " > ") h) (substring h (+ (length title) 3)))
          (t h))))

(defun ragd--note-label (n)
  "Return the label of the related note N."
  (let-alist n
    ;; line_start is 0 when the note as a whole is related (by links).
    (format "%s%s  %s%s%s"
            .path (if (and .line_start (> .line_start 0)) (format ":%d" .line_start) "")
            (or .title "")
            ;; The heading path starts with the note's own title: shown once.
            (let ((h (ragd--heading-after-title .heading .title)))
              (if (string-empty-p h) "" (concat " > " h)))
            (if (and .why (not (string-empty-p .why))) (format "  [%s]" .why) ""))))

(defun ragd--choose (prompt items label-fn)
  "Ask with PROMPT for one of ITEMS, labelled by LABEL-FN, in rank order.
Return the chosen item."
  (let* ((labelled (let ((seen (make-hash-table :test #'equal)) (out nil))
                     (dolist (it items (nreverse out))
                       (let* ((label (funcall label-fn it))
                              (n (cl-incf (gethash label seen 0))))
                         (push (cons (if (> n 1) (format "%s <%d>" label n) label) it)
                               out)))))
         (table (lambda (string pred action)
                  (if (eq action 'metadata)
                      '(metadata (category . ragd-result)
                                 (display-sort-function . identity)
                                 (cycle-sort-function . identity))
                    (complete-with-action action labelled string pred))))
         (choice (completing-read prompt table nil t nil nil (caar labelled))))
    (cdr (assoc choice labelled))))

(defun ragd-visit (file line)
  "Visit FILE with point at the start of LINE, pushing a return marker."
  (xref-push-marker-stack)
  (find-file file)
  (widen)
  (goto-char (point-min))
  (forward-line (1- (max 1 (or line 1))))
  (ignore-errors (recenter)))

(defun ragd--read-query (prompt)
  "Read a query with PROMPT, offering the region or the symbol at point."
  (let ((default (if (use-region-p)
                     (buffer-substring-no-properties (region-beginning) (region-end))
                   (thing-at-point 'symbol t))))
    (read-string (format-prompt prompt default) nil 'ragd-search-history default)))

(defun ragd--suggestions (data)
  "Return a hint from the suggestions in DATA, or an empty string."
  (let ((s (alist-get 'suggestions data)))
    (if s (concat "; try: " (string-join s "; ")) "")))

;;;; Commands

(defun ragd--search (query)
  "Ask ragd to search for QUERY; return the answer."
  (ragd-request "POST" "/v1/search"
                `((query . ,query) (k . ,ragd-k) (snippet_width . ,ragd-snippet-width))))

(defun ragd-search-results (query)
  "Return the search results of QUERY as a list of alists."
  (alist-get 'results (ragd--search query)))

;;;###autoload
(defun ragd-search (query)
  "Search the notes for QUERY and visit the chosen passage."
  (interactive (list (ragd--read-query "ragd search")))
  (let* ((data (ragd--search query))
         (results (alist-get 'results data)))
    (if (null results)
        (message "ragd: nothing in the notes matches %S%s" query (ragd--suggestions data))
      (let ((r (ragd--choose (format "ragd (%s): " query) results #'ragd--result-label)))
        (when r
          (let-alist r (ragd-visit .abs_path .line_start)))))))

(defun ragd-similar-notes (file)
  "Return the notes related to FILE, an absolute path, as alists."
  (let ((request (lambda (path)
                   (ragd-request "POST" "/v1/similar" `((path . ,path) (k . ,ragd-k))))))
    (alist-get
     'notes
     (condition-case err
         (funcall request file)
       (ragd-error
        ;; A vault reached through a symlink knows the file by its true name.
        (let ((true (file-truename file)))
          (if (and (eql (nth 2 err) 400) (not (equal true file)))
              (funcall request true)
            (signal (car err) (cdr err)))))))))

;;;###autoload
(defun ragd-similar ()
  "Offer the notes related to the current file and visit the chosen one."
  (interactive)
  (let ((file (or buffer-file-name (user-error "This buffer visits no file"))))
    (let ((notes (ragd-similar-notes (expand-file-name file))))
      (if (null notes)
          (message "ragd: no notes related to %s" (file-name-nondirectory file))
        (let ((n (ragd--choose "ragd related: " notes #'ragd--note-label)))
          (when n
            (let-alist n (ragd-visit .abs_path .line_start))))))))

;;;###autoload
(defun ragd-insert-context (query)
  "Insert at point a <retrieved-context> block of cited notes for QUERY."
  (interactive (list (ragd--read-query "ragd context")))
  (barf-if-buffer-read-only)
  (let* ((data (ragd-request "POST" "/v1/context"
                             `((query . ,query)
                               (budget . ,ragd-context-budget)
                               (style . ,ragd-context-style))))
         (context (alist-get 'context data)))
    (if (or (null context) (string-empty-p context))
        (message "ragd: nothing in the notes matches %S%s" query (ragd--suggestions data))
      (insert context)
      (unless (string-suffix-p "\n" context)
        (insert "\n")))))

(defun ragd-status-string (&optional status)
  "Return a one-line summary of STATUS, or of the daemon's status."
  (let ((st (or status (condition-case nil (ragd-request "GET" "/v1/status")
                         (ragd-error nil)))))
    (cond
     ((null st) "ragd: off")
     ((equal (alist-get 'state st) "indexing")
      (let ((p (alist-get 'progress st)))
        (if (and p (> (or (alist-get 'total p) 0) 0))
            (format "ragd: indexing %d/%d" (alist-get 'done p) (alist-get 'total p))
          "ragd: indexing")))
     ((equal (alist-get 'state st) "embedding")
      ;; Searchable by keywords; vectors still to come.
      (let ((v (alist-get 'vector st)))
        (format "ragd: embedding %d%s" (or (alist-get 'pending v) 0)
                (if (alist-get 'last_error v) " (paused)" ""))))
     (t (format "ragd: %s" (alist-get 'state st))))))

;;;###autoload
(defun ragd-status ()
  "Show the daemon's state and its vaults."
  (interactive)
  (let ((st (ragd-request "GET" "/v1/status")))
    (message "%s  %s\n%s" (ragd-status-string st) (alist-get 'version st)
             (mapconcat (lambda (v)
                          (let-alist v
                            (format "  %s  %s  %d notes, %d chunks, %d failed%s"
                                    .name .path (or .documents 0) (or .chunks 0)
                                    (or .failed 0) (if .online "" " (offline)"))))
                        (alist-get 'vaults st) "\n"))))

;;;; xref

;;;###autoload
(defun ragd-xref-backend ()
  "Return the ragd xref backend, for `xref-backend-functions'."
  'ragd)

(defun ragd--xrefs (query)
  "Return the search results of QUERY as xref items."
  (mapcar (lambda (r)
            (let-alist r
              (xref-make (format "%s  %s"
                                 (if (string-empty-p (or .heading "")) .title .heading)
                                 (ragd--preview r))
                         (xref-make-file-location .abs_path .line_start 0))))
          (ragd-search-results query)))

(cl-defmethod xref-backend-identifier-at-point ((_backend (eql ragd)))
  "Return the region's text or the symbol at point."
  (if (use-region-p)
      (buffer-substring-no-properties (region-beginning) (region-end))
    (thing-at-point 'symbol t)))

(cl-defmethod xref-backend-identifier-completion-table ((_backend (eql ragd)))
  "Any text is a query: offer no completions."
  nil)

(cl-defmethod xref-backend-definitions ((_backend (eql ragd)) identifier)
  "Search the notes for IDENTIFIER."
  (ragd--xrefs identifier))

(cl-defmethod xref-backend-references ((_backend (eql ragd)) identifier)
  "Search the notes for IDENTIFIER."
  (ragd--xrefs identifier))

(cl-defmethod xref-backend-apropos ((_backend (eql ragd)) pattern)
  "Search the notes for PATTERN, taken as a query."
  (ragd--xrefs pattern))

;;;###autoload
(define-minor-mode ragd-xref-mode
  "Make the xref commands of this buffer search ragd's notes."
  :lighter " ragd"
  (if ragd-xref-mode
      (add-hook 'xref-backend-functions #'ragd-xref-backend nil t)
    (remove-hook 'xref-backend-functions #'ragd-xref-backend t)))

(provide 'ragd)
;;; ragd.el ends here
