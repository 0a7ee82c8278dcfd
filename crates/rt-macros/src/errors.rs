//! Collecting several `syn::Error`s into one, so that a user sees every mistake in one compile.

/// The errors found so far; empty until the first is recorded.
#[derive(Debug, Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    /// Keeps the error of `result`, if any, after those already recorded.
    pub(crate) fn record(&mut self, result: syn::Result<()>) {
        if let Err(err) = result {
            self.push(err);
        }
    }

    /// Keeps `err` after the errors already recorded.
    pub(crate) fn push(&mut self, err: syn::Error) {
        match &mut self.0 {
            Some(first) => first.combine(err),
            None => self.0 = Some(err),
        }
    }

    /// `Ok` when nothing was recorded, else all the errors as one.
    pub(crate) fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::Span;

    #[test]
    fn nothing_recorded_is_ok() {
        let mut errors = Errors::default();
        errors.record(Ok(()));
        assert!(errors.finish().is_ok());
    }

    #[test]
    fn errors_keep_their_order() {
        let mut errors = Errors::default();
        errors.push(syn::Error::new(Span::call_site(), "first"));
        errors.record(Ok(()));
        errors.record(Err(syn::Error::new(Span::call_site(), "second")));
        let messages: Vec<String> = errors
            .finish()
            .unwrap_err()
            .into_iter()
            .map(|e| e.to_string())
            .collect();
        assert_eq!(messages, ["first", "second"]);
    }
}
